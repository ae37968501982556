import type { RecordedEvent } from '@runledger/event-log';
import type { HistoryMessage, PendingConfirmation } from '@runledger/task-assistant';

/** How much history the projection keeps: enough for follow-ups, bounded so a long chat stays cheap. */
export const HISTORY_LIMIT = 50;
const RECENT_RUNS = 50;

export interface MessageExchanged {
  run_id: string;
  user_message: string;
  assistant_message: string;
  at: string;
  /** The pending confirmation after this exchange (null when cleared or never set). */
  pending_confirmation: PendingConfirmation | null;
  /**
   * The last turn the decision saw when it read the conversation (null: none). A turn redelivered after a crash
   * can finish after a later turn; it is then stale and must not overwrite the later turn's confirmation.
   */
  based_on_run_id?: string | null;
}

export type ConversationEvent = { type: 'MessageExchanged'; data: MessageExchanged };

export interface ConversationState {
  history: HistoryMessage[];
  pending_confirmation: PendingConfirmation | null;
  recent_run_ids: string[];
}

export const initialConversation = (): ConversationState => ({ history: [], pending_confirmation: null, recent_run_ids: [] });

/** The conversation projection: history and the pending confirmation, folded from the log. */
export function evolveConversation(state: ConversationState, event: RecordedEvent): ConversationState {
  if (event.type !== 'MessageExchanged') return state;
  const e = event.data as MessageExchanged;
  if (state.recent_run_ids.includes(e.run_id)) return state;
  const history = [
    ...state.history,
    { role: 'user' as const, content: e.user_message, timestamp: e.at },
    { role: 'assistant' as const, content: e.assistant_message, timestamp: e.at },
  ].slice(-HISTORY_LIMIT);
  return { history, pending_confirmation: e.pending_confirmation, recent_run_ids: [...state.recent_run_ids, e.run_id].slice(-RECENT_RUNS) };
}

/**
 * Decider: record one exchange once per run (a retried run appends nothing). A stale turn (decided on an older
 * conversation than the current one) is recorded with the current pending confirmation, not its own.
 */
export function decideExchange(cmd: MessageExchanged, state: ConversationState): ConversationEvent[] {
  if (state.recent_run_ids.includes(cmd.run_id)) return [];
  const latest = state.recent_run_ids[state.recent_run_ids.length - 1] ?? null;
  const stale = cmd.based_on_run_id !== undefined && cmd.based_on_run_id !== latest;
  return [{ type: 'MessageExchanged', data: stale ? { ...cmd, pending_confirmation: state.pending_confirmation } : cmd }];
}

export const conversationDecider = {
  initialState: initialConversation,
  evolve: evolveConversation,
  decide: decideExchange,
};
