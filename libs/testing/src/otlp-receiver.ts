import { readBody, sendJson, startLoopbackServer } from './http-server';
import { waitUntil } from './helpers';
import { parseMetricsExport, ReceivedMetricPoint } from './otlp-metrics';

/** One span as received by {@link startOtlpReceiver}, flattened and normalised. */
export interface ReceivedSpan {
  /** `service.name` of the span's resource ('' when absent). */
  serviceName: string;
  /** Every attribute of the span's resource (`service.name`, `service.version` …). */
  resource: Record<string, unknown>;
  /** 32 lowercase hex characters, whatever encoding the exporter used. */
  traceId: string;
  /** 16 lowercase hex characters. */
  spanId: string;
  /** Absent for root spans. */
  parentSpanId?: string;
  name: string;
  /** OTLP SpanKind number: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  /** Attribute values decoded from OTLP AnyValue (int64 as number when safe, else string). */
  attributes: Record<string, unknown>;
  /** Instrumentation scope name, e.g. '@runledger/telemetry'. */
  scope?: string;
  startTimeUnixNano?: string;
  endTimeUnixNano?: string;
  status?: { code: number; message?: string };
}

/** A running OTLP/HTTP JSON trace receiver. */
export interface OtlpReceiver {
  /** Base URL to use as OTEL_EXPORTER_OTLP_ENDPOINT (`http://127.0.0.1:PORT`); traces go to `${url}/v1/traces`. */
  readonly url: string;
  /** Snapshot of every span received so far, in arrival order. */
  spans(): ReceivedSpan[];
  /** Every metric data point received so far (POST /v1/metrics), in arrival order: the latest export last. */
  metrics(): ReceivedMetricPoint[];
  /** Resolves with all spans once `pred(spans)` holds; rejects after `timeoutMs` (default 5000). */
  waitFor(pred: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  /** Forgets the spans received so far. */
  clear(): void;
  stop(): Promise<void>;
}

const SPAN_KINDS: Record<string, number> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};

/**
 * Starts an HTTP server that accepts OTLP/HTTP JSON trace exports on POST /v1/traces and metric exports on
 * POST /v1/metrics, so tests can assert on the spans and metrics a real service exported.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  let received: ReceivedSpan[] = [];
  let metrics: ReceivedMetricPoint[] = [];
  const server = await startLoopbackServer(async (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || (path !== '/v1/traces' && path !== '/v1/metrics')) {
      sendJson(res, 404, { error: `only POST /v1/traces and /v1/metrics are served, got ${req.method} ${path}` });
      return;
    }
    const contentType = String(req.headers['content-type'] ?? '');
    if (!contentType.includes('json')) {
      // Drain the body so the client sees the answer instead of a reset connection.
      await readBody(req);
      sendJson(res, 415, {
        error:
          `this test receiver accepts OTLP/HTTP JSON only (got content-type "${contentType}"); ` +
          'set OTEL_EXPORTER_OTLP_PROTOCOL=http/json or use @opentelemetry/exporter-trace-otlp-http',
      });
      return;
    }
    let payload: unknown;
    try {
      payload = JSON.parse((await readBody(req)).toString('utf8'));
    } catch (err) {
      sendJson(res, 400, { error: `invalid JSON: ${(err as Error).message}` });
      return;
    }
    if (path === '/v1/metrics') metrics.push(...parseMetricsExport(payload, decodeAttributes));
    else received.push(...parseExport(payload));
    sendJson(res, 200, {});
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    spans: () => [...received],
    metrics: () => [...metrics],
    async waitFor(pred, timeoutMs = 5000) {
      try {
        return await waitUntil(() => (pred([...received]) ? [...received] : null), { timeoutMs, intervalMs: 20 });
      } catch {
        const names = received.map((s) => `${s.serviceName}/${s.name}`).join(', ') || 'none';
        throw new Error(`OTLP receiver: condition not met within ${timeoutMs} ms; spans received: ${names}`);
      }
    },
    clear() {
      received = [];
      metrics = [];
    },
    stop: () => server.stop(),
  };
}

/** OTLP JSON is untyped wire data: read it through this accessor instead of `any`. */
type Loose = Record<string, unknown>;
function obj(value: unknown): Loose {
  return value && typeof value === 'object' ? (value as Loose) : {};
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function parseExport(payload: unknown): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of asArray(obj(payload).resourceSpans).map(obj)) {
    const resourceAttrs = decodeAttributes(obj(rs.resource).attributes);
    const serviceName = typeof resourceAttrs['service.name'] === 'string' ? resourceAttrs['service.name'] : '';
    for (const ss of asArray(rs.scopeSpans ?? rs.instrumentationLibrarySpans).map(obj)) {
      const scope = obj(ss.scope ?? ss.instrumentationLibrary).name;
      for (const span of asArray(ss.spans).map(obj)) {
        const parent = span.parentSpanId ? normaliseId(String(span.parentSpanId), 8) : '';
        const status = span.status ? obj(span.status) : undefined;
        out.push({
          serviceName,
          resource: resourceAttrs,
          traceId: normaliseId(String(span.traceId ?? ''), 16),
          spanId: normaliseId(String(span.spanId ?? ''), 8),
          // An all-zero parent id is how some exporters spell "no parent".
          ...(parent && !/^0+$/.test(parent) ? { parentSpanId: parent } : {}),
          name: String(span.name ?? ''),
          kind: typeof span.kind === 'string' ? (SPAN_KINDS[span.kind] ?? 0) : Number(span.kind ?? 0),
          attributes: decodeAttributes(span.attributes),
          ...(scope ? { scope: String(scope) } : {}),
          ...(span.startTimeUnixNano !== undefined ? { startTimeUnixNano: String(span.startTimeUnixNano) } : {}),
          ...(span.endTimeUnixNano !== undefined ? { endTimeUnixNano: String(span.endTimeUnixNano) } : {}),
          ...(status
            ? { status: { code: Number(status.code ?? 0), ...(status.message ? { message: String(status.message) } : {}) } }
            : {}),
        });
      }
    }
  }
  return out;
}

/**
 * OTLP JSON specifies hex ids, but some exporters emit protobuf-JSON base64.
 * The expected byte length tells them apart: hex is exactly 2 chars per byte.
 */
export function normaliseId(id: string, bytes: number): string {
  if (id.length === bytes * 2 && /^[0-9a-fA-F]+$/.test(id)) return id.toLowerCase();
  return Buffer.from(id, 'base64').toString('hex');
}

function decodeAttributes(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of asArray(list).map(obj)) {
    if (typeof kv.key === 'string') out[kv.key] = decodeAnyValue(kv.value);
  }
  return out;
}

function decodeAnyValue(value: unknown): unknown {
  const v = obj(value);
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return Boolean(v.boolValue);
  if ('intValue' in v) {
    // int64 arrives as a JSON string per the spec; keep precision when it does not fit.
    const n = Number(v.intValue);
    return Number.isSafeInteger(n) ? n : String(v.intValue);
  }
  if ('doubleValue' in v) return Number(v.doubleValue);
  if ('arrayValue' in v) return asArray(obj(v.arrayValue).values).map(decodeAnyValue);
  if ('kvlistValue' in v) return decodeAttributes(obj(v.kvlistValue).values);
  if ('bytesValue' in v) return String(v.bytesValue);
  return undefined;
}
