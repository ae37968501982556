import { headers as natsHeaders, NatsConnection } from '@nats-io/transport-node';
import { AppError, WireError } from '@runledger/kernel';
import { injectTraceContext, messagingAttributes, SpanKind, spansKeepAttributes, withSpan } from '@runledger/telemetry';
import { decodeReply, encodeJson } from './codec';

/** A failure answered by another service, with its wire error intact (code, retryable). */
export class RemoteError extends AppError {
  constructor(readonly wire: WireError, readonly subject: string) {
    super(wire.code, wire.message, wire.details);
  }
}

/** Answers meaning "the other service was not there, did not answer, or was busy with this very request". */
export const TRANSIENT_CODES: ReadonlySet<string> = new Set(['DEPENDENCY.DOWN', 'RUN.TIMEOUT', 'RUN.CONFLICT']);

export interface IdempotentRequestOptions {
  timeoutMs?: number;
  /** The pause before retry number `attempt` (0-based); undefined: give up and rethrow. */
  retryDelayMs: (attempt: number) => number | undefined;
  /** Stops retrying (rethrowing the last error) once aborted, e.g. when a tool's own timeout fired. */
  signal?: AbortSignal;
}

/**
 * Runs an idempotent attempt again after a transient failure (TRANSIENT_CODES) as `retryDelayMs` allows, until it is
 * answered, refused (any other error, rethrown at once) or the signal aborts: over the bus or in process alike.
 */
export async function retryTransient<T>(attempt: () => Promise<T>, opts: Pick<IdempotentRequestOptions, 'retryDelayMs' | 'signal'>): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      const delay = opts.retryDelayMs(n);
      if (!(err instanceof AppError && TRANSIENT_CODES.has(err.code)) || delay === undefined || opts.signal?.aborted) throw err;
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (opts.signal?.aborted) throw err;
    }
  }
}

/** Request/reply between services, with trace context in the headers and errors decoded into their codes. */
export class Bus {
  constructor(private readonly nc: NatsConnection) {}

  /**
   * request() for idempotent requests (ids derived from the caller's run): while the other service restarts or a
   * reply is lost, the same request is sent again; it lands on the same child run, whose recorded outcome comes
   * back instead of a second effect. Refusals (any other code) are rethrown at once.
   */
  requestIdempotent<T>(subject: string, payload: unknown, opts: IdempotentRequestOptions): Promise<T> {
    return retryTransient(() => this.request<T>(subject, payload, { timeoutMs: opts.timeoutMs }), opts);
  }

  async request<T>(subject: string, payload: unknown, opts: { timeoutMs?: number; subjectTemplate?: string } = {}): Promise<T> {
    const template = opts.subjectTemplate ?? subject;
    return withSpan(`send ${template}`, { kind: SpanKind.PRODUCER, attributes: spansKeepAttributes() ? messagingAttributes({ operation: 'send', subject, template }) : undefined }, async () => {
      const hdrs = injectTraceContext(natsHeaders());
      const body = encodeJson(payload);
      const limit = this.nc.info?.max_payload;
      if (limit && body.length > limit) {
        throw new AppError('REQUEST.TOO_LARGE', `The message is ${body.length} bytes; this NATS server accepts at most ${limit} (raise max_payload).`);
      }
      let reply;
      try {
        reply = await this.nc.request(subject, body, { timeout: opts.timeoutMs ?? 10_000, headers: hdrs });
      } catch (err) {
        // Callers may see these messages: they name no internal subject (the span and logs carry it).
        const message = String((err as Error)?.message ?? err);
        if (/no responders/i.test(message) || (err as { code?: string })?.code === '503') throw new AppError('DEPENDENCY.DOWN');
        if (/timeout/i.test(message)) throw new AppError('RUN.TIMEOUT', 'A dependency did not answer in time; retry.');
        throw new AppError('DEPENDENCY.DOWN');
      }
      const decoded = decodeReply(reply.data, reply.headers);
      if (!decoded.ok) throw new RemoteError(decoded.error, subject);
      return decoded.body as T;
    });
  }
}
