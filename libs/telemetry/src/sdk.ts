import { AsyncLocalStorage } from 'node:async_hooks';
import { context, propagation, trace, ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import type { NodeSDK } from '@opentelemetry/sdk-node';

let sdk: Pick<NodeSDK, 'shutdown'> | undefined;

/**
 * Starts OpenTelemetry for one service. The exporter is chosen and configured by the standard `OTEL_*`
 * variables (OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL = http/protobuf,
 * http/json or grpc, OTEL_BSP_*). With no endpoint and no explicit exporter nothing is exported, but spans
 * are still made and W3C trace context still propagates across services (events carry their traceparent);
 * then only a tracer provider is installed, not the whole NodeSDK with its exporters (~12 MiB resident each).
 */
export function startTelemetry(serviceName: string): void {
  if (sdk) return;
  const endpointConfigured = Boolean(process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  if (!process.env.OTEL_TRACES_EXPORTER && !endpointConfigured) process.env.OTEL_TRACES_EXPORTER = 'none';
  // Metrics go where the traces go (OTLP, every OTEL_METRIC_EXPORT_INTERVAL ms); with no endpoint, nowhere.
  process.env.OTEL_METRICS_EXPORTER ??= endpointConfigured ? 'otlp' : 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  const resource = resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME ?? serviceName });
  if ([process.env.OTEL_TRACES_EXPORTER, process.env.OTEL_METRICS_EXPORTER, process.env.OTEL_LOGS_EXPORTER].every((e) => e === 'none')) {
    sdk = startPropagationOnly(resource);
    return;
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when something is exported
  const { NodeSDK: Sdk } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const full = new Sdk({ resource, instrumentations: [] });
  full.start();
  sdk = full;
}

/** Flushes pending spans; called on graceful shutdown. */
export async function stopTelemetry(): Promise<void> {
  const current = sdk;
  sdk = undefined;
  await current?.shutdown().catch(() => undefined);
}

function startPropagationOnly(resource: ReturnType<typeof resourceFromAttributes>): Pick<NodeSDK, 'shutdown'> {
  const provider = new BasicTracerProvider({ resource });
  context.setGlobalContextManager(new AsyncLocalContextManager());
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  trace.setGlobalTracerProvider(provider);
  return {
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
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
