import { randomUUID } from 'node:crypto';
import { OtlpReceiver, startOtlpReceiver } from '@runledger/testing';
import { TestStack } from './support/stack';

jest.setTimeout(120_000);

describe('Tracing: one trace per agent request across services', () => {
  let otlp: OtlpReceiver;
  let stack: TestStack;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    stack = await TestStack.start({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
    });
  });
  afterAll(async () => {
    await stack?.stop();
    await otlp?.stop();
  });

  it('One agent request produces one connected trace spanning intent-classification, decision, tool-gateway, db-write and audit-ledger (exported over OTLP)', async () => {
    const reply = await stack.request<{ run_id: string }>('agents.task-assistant.process', { user_id: 'tracer', conversation_id: randomUUID(), message: 'add task trace me' });
    expect(reply.ok).toBe(true);

    const root = await stack.waitFor(async () => otlp.spans().find((s) => s.serviceName === 'decision' && s.name === 'process agents.task-assistant.process'), 15_000);
    const wanted = ['decision', 'intent-classification', 'tool-gateway', 'db-write', 'audit-ledger'];
    // Services export in batches: wait until every service has exported and every parent has arrived.
    const orphansIn = (spans: ReturnType<typeof otlp.spans>) => {
      const ids = new Set(spans.map((s) => s.spanId));
      return spans.filter((s) => s.parentSpanId && !ids.has(s.parentSpanId)).map((s) => `${s.serviceName}:${s.name}`);
    };
    let lastSeen: ReturnType<typeof otlp.spans> = [];
    const spans = await stack.waitFor(async () => {
      lastSeen = otlp.spans().filter((s) => s.traceId === root.traceId);
      return wanted.every((svc) => lastSeen.some((s) => s.serviceName === svc)) && orphansIn(lastSeen).length === 0 ? lastSeen : undefined;
    }, 20_000).catch(() => lastSeen);

    // Connected: every span but the root has its parent inside the same trace.
    expect(wanted.filter((svc) => !spans.some((s) => s.serviceName === svc))).toEqual([]);
    expect(orphansIn(spans)).toEqual([]);
    expect(spans.filter((s) => !s.parentSpanId)).toHaveLength(1);

    // Messaging semantic conventions.
    expect(spans.find((s) => s.serviceName === 'tool-gateway' && s.name === 'process rl.tool.invoke')).toMatchObject({ kind: 5, attributes: expect.objectContaining({ 'messaging.system': 'nats' }) });
    expect(spans.some((s) => s.kind === 4 && s.name.startsWith('publish rl.log.run'))).toBe(true);
    // The run id ties the trace to the log: the run's events carry the trace's traceparent.
    const events = await stack.runEvents(reply.body.run_id);
    expect(events[0].metadata.traceparent).toContain(root.traceId);
  });
});
