/* eslint-disable */
// Generated from proto-contracts/schemas/operations/ by scripts/generate-contracts.js. Do not edit by hand.

/**
 * Sent on rl.deadletters.retry: re-publishes the original command of a dead letter on its subject (a new log message) and records DeadLetterRetried. Answers the DeadLetter with the retry appended.
 */
export interface DeadLetterRetryRequest {
  id: string;
  requested_by?: string;
}

/**
 * One poison message a durable consumer gave up on (a MessageDeadLettered event on rl.log.deadletter.{durable}), with its retries.
 */
export interface DeadLetter {
  /**
   * `{durable}:{stream_seq}`: what `deadletters retry` takes.
   */
  id: string;
  durable: string;
  /**
   * Log sequence of the original message.
   */
  stream_seq: number;
  subject: string;
  event_type?: string | null;
  reason: string;
  error_code: string;
  deliveries: number;
  recorded_at: string;
  /**
   * The run the message belongs to (its events' run id, or the run of a run subject); null when it names none.
   */
  run_id: string | null;
  /**
   * The original message as the log stores it: its events ({type, data, metadata}), sealed fields still sealed; the text (at most 4 KiB) of a writer's message that is not events; null when the log no longer holds it, or when no Runledger writer made it (a message the server stored as a request's reply: its bytes are not shown).
   */
  payload?:
    | {
        type: string;
        data: unknown;
        metadata?: {};
      }[]
    | string
    | null;
  /**
   * Whether a retry can ever succeed: only a command (rl.log.inbox.*) can be re-published (a run event would enter the run twice), and only one that failed with a retryable error code (a message refused for good, as DATA.ERASED or REQUEST.INVALID, would fail the same way again).
   */
  retryable: boolean;
  /**
   * Why a retry cannot succeed; null when it can.
   */
  not_retryable_because: string | null;
  retries: {
    new_seq: number;
    requested_by: string;
    recorded_at: string;
  }[];
}

/**
 * Reply of rl.deadletters.list (request body: {} or {durable}): every dead letter in log order.
 */
export interface DeadLettersListResult {
  dead_letters: DeadLetter[];
}
/**
 * One poison message a durable consumer gave up on (a MessageDeadLettered event on rl.log.deadletter.{durable}), with its retries.
 */
