import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver';

// The exporter loads node:http with a dynamic import(), which jest's CommonJS sandbox
// rejects ("dynamic import callback was invoked without --experimental-vm-modules").
// Running it in a plain node child keeps this test on the real, unmodified exporter.
const EXPORTER_SCRIPT = `
const { context, SpanKind, trace } = require('@opentelemetry/api');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
const { resourceFromAttributes } = require('@opentelemetry/resources');
const { BasicTracerProvider, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');
(async () => {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'gateway' }),
    spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter())],
  });
  const tracer = provider.getTracer('runledger-test');
  const parent = tracer.startSpan('POST /runs', { kind: SpanKind.SERVER });
  const child = tracer.startSpan('nats publish',
    { kind: SpanKind.PRODUCER, attributes: { 'run.id': 'r-1', attempt: 3, cached: false, tags: ['a', 'b'] } },
    trace.setSpan(context.active(), parent));
  child.end();
  parent.end();
  await provider.forceFlush();
  await provider.shutdown();
  const { traceId, spanId } = parent.spanContext();
  process.stdout.write(JSON.stringify({ traceId, parentSpanId: spanId }));
})().catch((err) => { console.error(err); process.exit(1); });
`;

async function exportSpansFromChildProcess(endpoint: string): Promise<{ traceId: string; parentSpanId: string }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', EXPORTER_SCRIPT], {
    cwd: resolve(__dirname, '../../..'),
    // The base endpoint, as a service would get it; the exporter appends /v1/traces itself.
    env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
    timeout: 20_000,
  });
  return JSON.parse(stdout) as { traceId: string; parentSpanId: string };
}

describe('startOtlpReceiver', () => {
  let receiver: OtlpReceiver;

  beforeEach(async () => {
    receiver = await startOtlpReceiver();
  });
  afterEach(async () => {
    await receiver.stop();
  });

  it('receives parent and child spans from the real OTLP/HTTP JSON exporter', async () => {
    const ids = await exportSpansFromChildProcess(receiver.url);

    const spans = await receiver.waitFor((s) => s.length === 2);
    const p = spans.find((s) => s.name === 'POST /runs')!;
    const c = spans.find((s) => s.name === 'nats publish')!;
    expect(p).toMatchObject({ serviceName: 'gateway', kind: 2 /* SERVER */, scope: 'runledger-test' });
    expect(p.parentSpanId).toBeUndefined();
    expect(p.traceId).toBe(ids.traceId);
    expect(p.spanId).toBe(ids.parentSpanId);
    expect(c.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(c.traceId).toBe(p.traceId);
    expect(c.parentSpanId).toBe(p.spanId);
    expect(c.kind).toBe(4 /* PRODUCER */);
    expect(c.attributes).toEqual({ 'run.id': 'r-1', attempt: 3, cached: false, tags: ['a', 'b'] });
  });

  it('normalises base64 ids (protobuf-JSON style) to lowercase hex', async () => {
    const traceHex = '0af7651916cd43dd8448eb211c80319c';
    const spanHex = 'b7ad6b7169203331';
    const res = await fetch(`${receiver.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        resourceSpans: [
          {
            resource: { attributes: [{ key: 'service.name', value: { stringValue: 'worker' } }] },
            scopeSpans: [
              {
                spans: [
                  {
                    traceId: Buffer.from(traceHex, 'hex').toString('base64'),
                    spanId: Buffer.from(spanHex, 'hex').toString('base64'),
                    parentSpanId: '',
                    name: 'step',
                    kind: 'SPAN_KIND_CONSUMER',
                    attributes: [{ key: 'tokens', value: { intValue: '42' } }],
                  },
                ],
              },
            ],
          },
        ],
      }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
    expect(receiver.spans()).toEqual([
      { serviceName: 'worker', resource: { 'service.name': 'worker' }, traceId: traceHex, spanId: spanHex, name: 'step', kind: 5, attributes: { tokens: 42 } },
    ]);
  });

  it('rejects protobuf with 415 and tells how to switch to JSON', async () => {
    const res = await fetch(`${receiver.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf' },
      body: new Uint8Array([0x0a, 0x00]),
    });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { error: string }).error).toContain('OTEL_EXPORTER_OTLP_PROTOCOL=http/json');
    expect(receiver.spans()).toEqual([]);
  });

  it('waitFor times out listing what did arrive, and clear() forgets spans', async () => {
    await expect(receiver.waitFor((s) => s.some((x) => x.name === 'never'), 100)).rejects.toThrow(
      /within 100 ms; spans received: none/,
    );
    await fetch(`${receiver.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: '', spanId: '', name: 'x' }] }] }] }),
    });
    expect(receiver.spans()).toHaveLength(1);
    receiver.clear();
    expect(receiver.spans()).toEqual([]);
  });
});
