import { context, Context, propagation, Span, SpanKind, SpanStatusCode, trace, TextMapGetter, TextMapSetter } from '@opentelemetry/api';
import type { MsgHdrs } from '@nats-io/transport-node';
import { spansKeepAttributes } from './sdk';

/** W3C trace context through NATS headers. A missing header reads as `undefined`, never "". */
const getter: TextMapGetter<MsgHdrs | undefined> = {
  keys: (carrier) => (carrier ? carrier.keys() : []),
  get: (carrier, key) => {
    if (!carrier || !carrier.has(key)) return undefined;
    const value = carrier.get(key);
    return value === '' ? undefined : value;
  },
};

const setter: TextMapSetter<MsgHdrs> = {
  set: (carrier, key, value) => carrier.set(key, value),
};

export function injectTraceContext(hdrs: MsgHdrs, ctx: Context = context.active()): MsgHdrs {
  propagation.inject(ctx, hdrs, setter);
  return hdrs;
}

export function extractTraceContext(hdrs: MsgHdrs | undefined): Context {
  return propagation.extract(context.active(), hdrs, getter);
}

/** Builds a context from a stored `traceparent` (events keep theirs in metadata). */
export function contextFromTraceparent(traceparent: string | undefined, tracestate?: string): Context {
  if (!traceparent) return context.active();
  return propagation.extract(context.active(), { traceparent, ...(tracestate ? { tracestate } : {}) });
}

const tracer = trace.getTracer('runledger');

/**
 * Runs `fn` inside a span following the messaging semantic conventions
 * (`process {subject template}`, CONSUMER; `send {subject template}`, CLIENT …).
 */
export async function withSpan<T>(
  name: string,
  opts: { kind: SpanKind; parent?: Context; attributes?: Record<string, string | number | boolean> },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const span = tracer.startSpan(name, { kind: opts.kind, ...(spansKeepAttributes() ? { attributes: { 'messaging.system': 'nats', ...opts.attributes } } : {}) }, opts.parent ?? context.active());
  return context.with(trace.setSpan(opts.parent ?? context.active(), span), async () => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}

export interface SpanSpec {
  name: string;
  kind: SpanKind;
  parent?: Context;
  attributes?: Record<string, string | number | boolean>;
}

/**
 * Runs `fn`, one operation that serves many messages (a batch append), inside one span per message, each a child of
 * its own message's context, so every request's trace shows the step it took part in. The operation itself runs
 * under a span of its own, `batchName`, linked to each of them (the OTel convention for batches: it belongs to no
 * single trace). A failure marks every span.
 */
export async function withSpans<T>(batchName: string, specs: readonly SpanSpec[], fn: () => Promise<T>): Promise<T> {
  const spans = specs.map((o) => tracer.startSpan(o.name, { kind: o.kind, attributes: { 'messaging.system': 'nats', ...o.attributes } }, o.parent ?? context.active()));
  const batch = tracer.startSpan(batchName, { kind: SpanKind.INTERNAL, root: true, links: spans.map((s) => ({ context: s.spanContext() })), attributes: { 'messaging.batch.message_count': specs.length } });
  const all = [...spans, batch];
  try {
    return await context.with(trace.setSpan(context.active(), batch), fn);
  } catch (err) {
    for (const span of all) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    throw err;
  } finally {
    for (const span of all) span.end();
  }
}

/** The current trace id, for structured logs. */
export function currentTraceId(): string | undefined {
  return trace.getSpan(context.active())?.spanContext().traceId;
}

export { SpanKind };
