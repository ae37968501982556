import { randomUUID } from 'node:crypto';
import { context, propagation, SpanKind, SpanStatusCode, trace, type TextMapSetter } from '@opentelemetry/api';
import { errors as natsErrors, headers as natsHeaders, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { errorFromWire, isWireError, RunledgerError, TimeoutError, UnavailableError } from './errors.js';

/** The header every Runledger reply carries: `ok` (the body is the answer) or `error` (the body is a WireError). */
export const STATUS_HEADER = 'Rl-Status';
/** The client's id of one request, the same on each retry of it (for the caller's and Runledger's logs and traces). */
export const REQUEST_ID_HEADER = 'Rl-Request-Id';

/** How a request is retried when the answer says it may be (retryable code, no reply, nobody serving yet). */
export interface RetryPolicy {
  /** Attempts in all, the first included (default 4). */
  attempts: number;
  /** Delay before the second attempt (default 250 ms); doubled each time, with jitter, up to maxDelayMs. */
  initialDelayMs: number;
  /** Largest delay between attempts (default 5 000 ms). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, initialDelayMs: 250, maxDelayMs: 5_000 };

export interface RequestOptions {
  /** How long to wait for one reply (default: the client's timeoutMs). */
  timeoutMs?: number;
  /** Overrides the client's retry policy for this request; `{ attempts: 1 }` never retries. */
  retry?: Partial<RetryPolicy>;
  /** The request's id (default: a new UUID); sent as the Rl-Request-Id header on every attempt. */
  requestId?: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const tracer = trace.getTracer('@runledger/client');

const setter: TextMapSetter<MsgHdrs> = { set: (carrier, key, value) => carrier.set(key, value) };

/**
 * One request/reply exchange with Runledger's conventions: JSON bodies, the Rl-Status header, typed errors, retries of
 * retryable failures with backoff (only for requests that are idempotent — every public subject is, by its ids), and
 * the caller's active OpenTelemetry span as the parent of a CLIENT span whose W3C context travels in the headers.
 */
export class Requester {
  constructor(private readonly nc: NatsConnection, private readonly defaults: { timeoutMs: number; retry: RetryPolicy }) {}

  async request<T>(subject: string, body: unknown, opts: RequestOptions = {}): Promise<T> {
    const retry = { ...this.defaults.retry, ...opts.retry };
    const requestId = opts.requestId ?? randomUUID();
    const timeout = opts.timeoutMs ?? this.defaults.timeoutMs;
    const span = tracer.startSpan(`send ${subject}`, { kind: SpanKind.CLIENT, attributes: { 'messaging.system': 'nats', 'messaging.operation.name': 'send', 'messaging.destination.name': subject, 'rl.request_id': requestId } });
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          const result = await this.once<T>(subject, body, requestId, timeout, trace.setSpan(context.active(), span));
          span.setStatus({ code: SpanStatusCode.OK });
          return result;
        } catch (err) {
          const error = err instanceof RunledgerError ? err : this.fromBus(err, subject, timeout);
          if (!error.retryable || attempt >= retry.attempts) {
            span.setAttribute('rl.error_code', error.code);
            span.setStatus({ code: SpanStatusCode.ERROR, message: error.code });
            throw error;
          }
          span.addEvent('retry', { attempt, 'rl.error_code': error.code });
          await sleep(backoffMs(retry, attempt));
        }
      }
    } finally {
      span.end();
    }
  }

  private async once<T>(subject: string, body: unknown, requestId: string, timeout: number, ctx: ReturnType<typeof context.active>): Promise<T> {
    const hdrs = natsHeaders();
    hdrs.set(REQUEST_ID_HEADER, requestId);
    propagation.inject(ctx, hdrs, setter);
    const reply = await this.nc.request(subject, encoder.encode(JSON.stringify(body ?? null)), { timeout, headers: hdrs });
    const text = reply.data.length ? decoder.decode(reply.data) : 'null';
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new UnavailableError({ code: 'CLIENT.BAD_REPLY', message: `The reply on ${subject} is not JSON.`, retryable: false }, subject);
    }
    if (reply.headers?.get(STATUS_HEADER) === 'error') {
      throw errorFromWire(isWireError(value) ? value : { code: 'INTERNAL', message: 'Something went wrong on our side.', retryable: true }, subject);
    }
    return value as T;
  }

  /** A failure of the bus itself, as a typed error: no reply in time and nobody serving yet may be retried. */
  private fromBus(err: unknown, subject: string, timeout: number): RunledgerError {
    if (err instanceof natsErrors.TimeoutError) return new TimeoutError({ code: 'CLIENT.TIMEOUT', message: `No reply on ${subject} within ${timeout} ms.`, retryable: true }, subject);
    if (err instanceof natsErrors.NoRespondersError || (err instanceof natsErrors.RequestError && err.isNoResponders())) {
      return new UnavailableError({ code: 'CLIENT.NO_RESPONDERS', message: `Nobody serves ${subject} right now.`, retryable: true }, subject);
    }
    if (err instanceof natsErrors.PermissionViolationError) {
      return errorFromWire({ code: 'CLIENT.PERMISSION_DENIED', message: `This identity may not send on ${subject}.`, retryable: false }, subject);
    }
    const message = err instanceof Error ? err.message : String(err);
    return new UnavailableError({ code: 'CLIENT.CONNECTION', message: `The request on ${subject} failed: ${message}`, retryable: !(err instanceof natsErrors.ClosedConnectionError) }, subject);
  }
}

/** Exponential backoff with full jitter between half and all of the step. */
export function backoffMs(policy: RetryPolicy, attempt: number): number {
  const step = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (attempt - 1));
  return step / 2 + Math.random() * (step / 2);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
