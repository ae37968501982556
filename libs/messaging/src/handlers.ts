import { EventPattern, MessagePattern } from '@nestjs/microservices';
import type { MsgHdrs } from '@nats-io/transport-node';
import type { StoredEvent } from '@runledger/event-log';

/** Options of a durable JetStream consumer bound to a Nest handler. */
export interface LogConsumerOptions {
  /** Durable consumer name: unique per service and purpose; redelivery resumes here after a crash. */
  durable: string;
  /** Messages processed at once (order across aggregates is not needed for inboxes). Default 1: strict order. */
  concurrency?: number;
  /** Deliveries before a message is treated as poison: terminated and dead-lettered. Default 8. */
  maxDeliver?: number;
  /** How long the server waits for an ack before redelivering. Default 30 s (heartbeats extend it). */
  ackWaitMs?: number;
  /**
   * One instance at a time consumes (a lease, see ConsumerLease), for handlers that must see the log in order when a
   * service runs twice (a cluster): the other instances stand by and take over when the holder's lease lapses.
   */
  exclusive?: boolean;
  /**
   * Batch mode (strict log order, one batch at a time): the handler receives `StoredEvent[]` of up to this many
   * events, those already delivered while the previous batch was handled, so a batch is one event when the log is
   * quiet and grows with the rate. All are acked after the handler returns; when it throws, the batch is handled
   * again one event at a time, so retry, poison and dead-letter work per event as without batches.
   */
  batch?: number;
  /**
   * Batch mode only: how long events gather on the server, unsent, after the first of a quiet spell and after a burst
   * smaller than `batch`, before one pull takes them all (see BurstPull). A projection that does per-batch work (one
   * chain append, one row write per run) then does it once per request instead of once per event while the log is
   * quiet, and is woken once per burst; the events' own producers never wait for it.
   */
  lingerMs?: number;
}

/**
 * What a batch handler may return when part of its work is durable only later (issue 22: the ledger holds an open
 * run's read-model rows until the run ends or a bound passes, so a run's row is written once): the batch is acked,
 * in log order after every batch before it, once `settled` resolves. `settled` rejects when that work can never be
 * done (the ledger: a row write that failed its retries): the batch is never acked (the server redelivers it after
 * ack_wait, up to maxDeliver), nothing after it is acked by this consumer, which then consumes again from the ack floor,
 * handing what it had handled since to the handler again (see BatchSettler).
 */
export interface DeferredSettlement {
  settled: Promise<void>;
}

/** The `settled` of a handler's result, if it is a DeferredSettlement. */
export function deferredSettlement(out: unknown): Promise<void> | undefined {
  const settled = (out as Partial<DeferredSettlement> | null | undefined)?.settled;
  return settled instanceof Promise ? settled : undefined;
}

export interface RequestContext {
  subject: string;
  headers?: MsgHdrs;
  /** The subject the reply goes to: `_INBOX_<identity>.…` for a Runledger identity (see replyIdentity). */
  reply?: string;
}

export interface LogContext {
  subject: string;
  deliveryCount: number;
  streamSequence: number;
}

export const HANDLER_KIND = { request: 'request', log: 'log' } as const;

/**
 * Handed to request handlers that opt in with `acceptMalformed` when the payload is not JSON, or is JSON outside the
 * structural bounds (json-bounds.ts): why (`reason`, the transport's own words) and the body as received.
 */
export class MalformedPayload {
  constructor(readonly reason: string, readonly bytes: Uint8Array) {}
}

export interface RequestHandlerOptions {
  /**
   * Receive a MalformedPayload instead of the transport's REQUEST.INVALID reply when the payload is not bounded JSON:
   * for APIs whose contract answers every input with its own reply shape (the task assistant's templates).
   */
  acceptMalformed?: boolean;
  /** Largest request body in bytes (default {@link MAX_REQUEST_BYTES}); larger ones get REQUEST.TOO_LARGE before any handler runs. */
  maxBytes?: number;
}

/**
 * Default bound of a request body. Requests end up in the log (often more than once), so this keeps every
 * event far below a server's max_payload (1 MiB by default); bulk content goes through rl.artifacts.put.
 */
export const MAX_REQUEST_BYTES = 256 * 1024;

/** Request/reply over core NATS: the handler's return value is the reply body. */
export const RequestHandler = (subject: string, options: RequestHandlerOptions = {}): MethodDecorator =>
  MessagePattern(subject, { kind: HANDLER_KIND.request, ...options });

/**
 * Durable consumption of the log: the handler receives a decoded {@link StoredEvent}; it is acked only after
 * the handler returns (so its own outcome must already be appended), nak'ed with backoff when it throws a
 * retryable error, and terminated plus dead-lettered when it is poison.
 */
export const LogConsumer = (filterSubject: string, options: LogConsumerOptions): MethodDecorator =>
  EventPattern(filterSubject, { kind: HANDLER_KIND.log, ...options }) as MethodDecorator;

export type LogHandler = (event: StoredEvent, ctx: LogContext) => Promise<void>;
export type LogBatchHandler = (events: StoredEvent[], ctx: { durable: string }) => Promise<void>;
