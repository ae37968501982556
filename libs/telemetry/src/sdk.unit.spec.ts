import { context, propagation, trace, TraceFlags } from '@opentelemetry/api';
import { spansKeepAttributes, startTelemetry, stopTelemetry } from './sdk';

/** The traceparent a message sent from `ctx` would carry. */
function traceparentOf(ctx = context.active()): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier.traceparent;
}

describe('Telemetry with nothing to export: one trace per agent request still propagates', () => {
  beforeAll(() => {
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
    delete process.env.OTEL_TRACES_EXPORTER;
    delete process.env.OTEL_METRICS_EXPORTER;
    startTelemetry('spec');
  });
  afterAll(() => stopTelemetry());

  const tracer = () => trace.getTracer('spec');

  it('a span under a received traceparent stays in that trace, gets its own span id and keeps the sampling flag', () => {
    const received = propagation.extract(context.active(), { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
    const span = tracer().startSpan('process rl.tool.invoke', {}, received);
    const sent = traceparentOf(trace.setSpan(received, span));
    expect(sent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
    expect(sent).not.toContain('b7ad6b7169203331');
  });

  it('an unsampled parent stays unsampled (a service further on that exports follows the caller\'s decision)', () => {
    const received = propagation.extract(context.active(), { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00' });
    expect(tracer().startSpan('x', {}, received).spanContext().traceFlags).toBe(TraceFlags.NONE);
  });

  it('a span with no parent (or root: true) starts a new sampled trace; nested active spans share it', () => {
    const root = tracer().startSpan('publish agents.task-assistant.process');
    const { traceId } = root.spanContext();
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(root.spanContext().traceFlags).toBe(TraceFlags.SAMPLED);
    const inner = context.with(trace.setSpan(context.active(), root), () => tracer().startActiveSpan('inner', (span) => {
      expect(trace.getActiveSpan()).toBe(span);
      return span.spanContext();
    }));
    expect(inner.traceId).toBe(traceId);
    expect(inner.spanId).not.toBe(root.spanContext().spanId);
    const batch = context.with(trace.setSpan(context.active(), root), () => tracer().startSpan('chain audit batch', { root: true }));
    expect(batch.spanContext().traceId).not.toBe(traceId);
  });

  it('Issue 22 spans keep no attributes here, so hot paths build none (spansKeepAttributes); the span still carries its trace', () => {
    expect(spansKeepAttributes()).toBe(false);
    expect(tracer().startSpan('publish rl.log.run.{id}').isRecording()).toBe(false);
  });
});

describe('Telemetry stopped: spans keep attributes again (a provider of a test\'s own, or an exporter)', () => {
  it('Issue 22 spansKeepAttributes is true unless only the propagating tracer is installed', async () => {
    startTelemetry('spec-again');
    expect(spansKeepAttributes()).toBe(false);
    await stopTelemetry();
    expect(spansKeepAttributes()).toBe(true);
  });
});
