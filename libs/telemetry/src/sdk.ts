import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { context, isSpanContextValid, propagation, trace, ROOT_CONTEXT, TraceFlags, type Context, type ContextManager, type Span, type SpanOptions, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { RandomIdGenerator } from '@opentelemetry/sdk-trace-base';
import type { NodeSDK } from '@opentelemetry/sdk-node';

let sdk: Pick<NodeSDK, 'shutdown'> | undefined;

/**
 * Starts OpenTelemetry for one service. The exporter is chosen and configured by the standard `OTEL_*`
 * variables (OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL = http/protobuf,
 * http/json or grpc, OTEL_BSP_*). With no endpoint and no explicit exporter nothing is exported, but spans
 * are still made and W3C trace context still propagates across services (events carry their traceparent);
 * then only a propagating tracer is installed, not the whole NodeSDK with its exporters (~12 MiB resident each).
 */
export function startTelemetry(serviceName: string): void {
  if (sdk) return;
  const endpointConfigured = Boolean(process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  if (!process.env.OTEL_TRACES_EXPORTER && !endpointConfigured) process.env.OTEL_TRACES_EXPORTER = 'none';
  // Metrics go where the traces go (OTLP, every OTEL_METRIC_EXPORT_INTERVAL ms); with no endpoint, nowhere.
  process.env.OTEL_METRICS_EXPORTER ??= endpointConfigured ? 'otlp' : 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  if ([process.env.OTEL_TRACES_EXPORTER, process.env.OTEL_METRICS_EXPORTER, process.env.OTEL_LOGS_EXPORTER].every((e) => e === 'none')) {
    sdk = startPropagationOnly();
    return;
  }
  const version = serviceVersion();
  const resource = resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME ?? serviceName, ...(version ? { 'service.version': version } : {}) });
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when something is exported
  const { NodeSDK: Sdk } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const full = new Sdk({ resource, instrumentations: [] });
  full.start();
  sdk = full;
}

/**
 * The release a service runs (`service.version` of its resource): the version of the Runledger package it was built
 * from, the nearest package.json named `runledger` above this file (sources and dist alike); undefined if none.
 */
export function serviceVersion(from = __dirname): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'runledger' && pkg.version) return pkg.version;
    } catch {
      // no package.json here: look further up
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/** Flushes pending spans; called on graceful shutdown. */
export async function stopTelemetry(): Promise<void> {
  const current = sdk;
  sdk = undefined;
  await current?.shutdown().catch(() => undefined);
}

/** False while only the propagating tracer is installed: spans keep no attributes, so none need building. */
let recordingSpans = true;

/**
 * Whether the spans this process starts keep attributes (an exporter is configured, or a test's own provider):
 * a hot path builds a span's attributes only then (issue 22: a commit's publish span, per append).
 */
export function spansKeepAttributes(): boolean {
  return recordingSpans;
}

function startPropagationOnly(): Pick<NodeSDK, 'shutdown'> {
  context.setGlobalContextManager(new AsyncLocalContextManager());
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  trace.setGlobalTracerProvider(new PropagatingTracerProvider());
  recordingSpans = false;
  return {
    shutdown: async () => {
      recordingSpans = true;
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/**
 * With nothing to export to, a span needs only its identity: a new span id in its parent's trace (a new trace at a
 * root), with the parent's sampling flag, so the traceparent every message and event carries is exactly what a
 * recording SDK would send, and a service further on that does export continues the same trace. Attributes, events
 * and timings would be recorded only to be dropped (4–5 % of a service's CPU under load, issue 12 profile).
 */
class PropagatingTracer implements Tracer {
  private readonly ids = new RandomIdGenerator();

  startSpan(_name: string, options?: SpanOptions, ctx: Context = context.active()): Span {
    const parent = options?.root ? undefined : trace.getSpanContext(ctx);
    const inTrace = parent && isSpanContextValid(parent) ? parent : undefined;
    return trace.wrapSpanContext({
      traceId: inTrace?.traceId ?? this.ids.generateTraceId(),
      spanId: this.ids.generateSpanId(),
      traceFlags: inTrace?.traceFlags ?? TraceFlags.SAMPLED,
      ...(inTrace?.traceState ? { traceState: inTrace.traceState } : {}),
    });
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: [F] | [SpanOptions, F] | [SpanOptions, Context, F]): ReturnType<F> {
    const fn = rest[rest.length - 1] as F;
    const options = rest.length > 1 ? (rest[0] as SpanOptions) : undefined;
    const parent = rest.length > 2 ? (rest[1] as Context) : context.active();
    const span = this.startSpan(name, options, parent);
    return context.with(trace.setSpan(parent, span), () => fn(span)) as ReturnType<F>;
  }
}

class PropagatingTracerProvider implements TracerProvider {
  private readonly tracer = new PropagatingTracer();

  getTracer(): Tracer {
    return this.tracer;
  }
}

/** The active context per async flow (what the NodeSDK installs, in a few lines). */
class AsyncLocalContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();

  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    return this.storage.run(ctx, () => fn.call(thisArg, ...args));
  }

  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const run = <R>(fn: () => R): R => this.with(ctx, fn);
    return function (this: unknown, ...args: unknown[]) {
      return run(() => (target as (...a: unknown[]) => unknown).apply(this, args));
    } as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.storage.disable();
    return this;
  }
}
