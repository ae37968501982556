import { Injectable } from '@nestjs/common';
import { aggregateRef, EventLog, foldEvents, handleCommand, KnownState, RecordedEvent } from '@runledger/event-log';
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

  /**
   * The conversation and the version it was folded at (hand it to `record` in the same turn: no second read); with
   * `atVersion`, the conversation as it was at that version (what a turn that recorded it as its context saw).
   */
  async load(userId: string, conversationId: string, atVersion?: number): Promise<KnownState<ConversationState>> {
    const read = await this.log.readAggregate(this.ref(userId, conversationId));
    const events = atVersion === undefined ? read.events : read.events.filter((e) => e.seq <= atVersion);
    return {
      state: foldEvents(evolveConversation, initialConversation(), events as unknown as RecordedEvent[]),
      // As read (see readAggregate); at an earlier version, that version's last event (nothing is appended on it).
      version: atVersion === undefined ? read.version : events.length ? events[events.length - 1].seq : 0,
    };
  }

  /**
   * Records a turn's exchange. `loaded`: what `load` gave earlier in this turn, if it ran in this process; it is
   * decided on without a read (the append expects its version). Nothing is held between turns: a conversation's
   * opened data lives no longer than the turn that needs it (an erasure is not outlived by a cache).
   */
  async record(userId: string, conversationId: string, exchange: MessageExchanged, loaded?: KnownState<ConversationState>): Promise<void> {
    await handleCommand(this.log, this.ref(userId, conversationId), conversationDecider, exchange, { commandId: `exchange:${exchange.run_id}`, metadata: { user_id: userId }, known: loaded });
  }
}
