import { headers as natsHeaders, NatsConnection } from '@nats-io/transport-node';
import { AppError, WireError } from '@runledger/kernel';
import { injectTraceContext, SpanKind, withSpan } from '@runledger/telemetry';
import { decodeReply, encodeJson } from './codec';

/** A failure answered by another service, with its wire error intact (code, retryable). */
export class RemoteError extends AppError {
  constructor(readonly wire: WireError, readonly subject: string) {
    super(wire.code, wire.message, wire.details);
  }
}

/** Request/reply between services, with trace context in the headers and errors decoded into their codes. */
export class Bus {
  constructor(private readonly nc: NatsConnection) {}

  async request<T>(subject: string, payload: unknown, opts: { timeoutMs?: number; subjectTemplate?: string } = {}): Promise<T> {
    return withSpan(`send ${opts.subjectTemplate ?? subject}`, { kind: SpanKind.PRODUCER, attributes: { 'messaging.destination.name': subject } }, async () => {
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
