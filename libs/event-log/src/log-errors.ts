import { AppError } from '@runledger/kernel';

/** JetStream API error codes the log acts on. */
export const JS_WRONG_LAST_SEQUENCE = 10071;
/** JetStream API "temporarily unavailable" (no stream leader yet). */
const JS_TEMPORARILY_UNAVAILABLE = 10008;

/** Another writer appended to the aggregate since the caller read it: reload, decide again. */
export class ConcurrencyError extends Error {
  readonly code = 'RUN.CONFLICT';
  constructor(readonly subject: string, readonly expectedVersion: number) {
    super(`concurrent append to ${subject} (expected version ${expectedVersion})`);
  }
}

/**
 * The log holds a sequence it cannot hand out: the server has no message there (a damaged store file: a one-byte
 * edit makes nats-server drop the message) although the log never deletes. Not transient: a tamper, named by its
 * sequence (`runledger audit verify` reports it as such).
 */
export class UnreadableMessageError extends AppError {
  constructor(readonly seq: number) {
    super('LOG.UNREADABLE', `The event log cannot read its stored message ${seq} (damaged or removed).`);
  }
}

/**
 * A stored message no Runledger writer made (see writerMessageProblem): nats-server stores on a log subject whatever it
 * publishes there itself (a JetStream API answer, or a direct get's copy of another message, sent to a request's
 * reply subject), and no permission can refuse it. Readers skip it, the same way live and in a replay; the message
 * holds nothing any fold, decision or audit takes in.
 */
export class ForeignMessageError extends AppError {
  constructor(readonly seq: number, readonly why: string) {
    super('LOG.FOREIGN_MESSAGE', `Log message ${seq} is no Runledger writer's: it ${why}.`);
  }
}

/** A read whose consumer stopped delivering: retryable, never a partial answer. */
export function stalledRead(): AppError {
  return new AppError('DEPENDENCY.DOWN', 'The event log stopped answering a read; retry.');
}

/**
 * A read that did not get an answer from the log (connection lost, timeout, server restarting). It is
 * retryable and must never be read as "not there": a decision taken on it would be permanent and wrong.
 */
export function readFailed(err: unknown): never {
  if (err instanceof AppError) throw err;
  throw new AppError('DEPENDENCY.DOWN', 'The event log could not be read; retry.');
}

/**
 * NATS error names that mean the bus did not answer (a server restarting, a cluster electing a leader, a reconnect).
 * `JetStreamNotEnabled` is what the client makes of a publish that had no responders after its retries: the stream's
 * node restarting in a cluster (chaos --cluster: a task's write answered INTERNAL and its run left open).
 */
const BUS_FAULT_NAMES = new Set(['TimeoutError', 'NoResponders', 'ClosedConnectionError', 'DrainingConnectionError', 'ConnectionError', 'JetStreamNotEnabled']);

/**
 * True for an error that says the bus did not answer, not that the request was wrong: transient, so whoever gets it
 * retries (a handler answers DEPENDENCY.DOWN, a consumer redelivers) and nothing permanent is decided from it.
 */
export function isBusFault(err: unknown): boolean {
  const e = err as { name?: unknown; cause?: unknown; code?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  if (typeof e.name === 'string' && BUS_FAULT_NAMES.has(e.name)) return true;
  if (e.name === 'JetStreamStatusError' && e.code === 503) return true;
  if (jsErrorCode(err) === JS_TEMPORARILY_UNAVAILABLE) return true;
  return e.name === 'RequestError' && isBusFault(e.cause);
}

/** The message API's "no message found": an answer (nothing stored there), not a failure. */
export function isNoMessage(err: unknown): boolean {
  return /no message found/i.test(String((err as Error)?.message)) || jsErrorCode(err) === 10037;
}

export function jsErrorCode(err: unknown): number | undefined {
  const e = err as { apiError?: () => { err_code?: number }; code?: unknown };
  if (typeof e?.apiError === 'function') return e.apiError()?.err_code;
  return undefined;
}

