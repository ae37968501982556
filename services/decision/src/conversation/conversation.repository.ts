import { Injectable } from '@nestjs/common';
import { aggregateRef, EventLog, foldEvents, handleCommand, RecordedEvent } from '@runledger/event-log';
import { deterministicUuid } from '@runledger/kernel';
import { conversationDecider, ConversationState, evolveConversation, initialConversation, MessageExchanged } from './conversation';

/**
 * Conversations are keyed by (user, conversation id): a user who guesses another user's conversation id
 * gets an empty conversation of their own, never the other user's history or pending confirmation.
 */
@Injectable()
export class ConversationRepository {
  constructor(private readonly log: EventLog) {}

  private ref(userId: string, conversationId: string) {
    return aggregateRef('conversation', deterministicUuid('conversation', userId, conversationId));
  }

  async load(userId: string, conversationId: string): Promise<ConversationState> {
    const events = await this.log.read(this.ref(userId, conversationId));
    return foldEvents(evolveConversation, initialConversation(), events as unknown as RecordedEvent[]);
  }

  async record(userId: string, conversationId: string, exchange: MessageExchanged): Promise<void> {
    await handleCommand(this.log, this.ref(userId, conversationId), conversationDecider, exchange, { commandId: `exchange:${exchange.run_id}`, metadata: { user_id: userId } });
  }
}
