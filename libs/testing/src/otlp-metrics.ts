/** OTLP/HTTP JSON metric exports, flattened to one point per (metric, attributes) for tests to assert on. */

/** One data point as received: a sum or gauge value, or a histogram's count and sum. */
export interface ReceivedMetricPoint {
  serviceName: string;
  name: string;
  kind: 'sum' | 'gauge' | 'histogram';
  attributes: Record<string, unknown>;
  /** Sum and gauge points. */
  value?: number;
  /** Histogram points. */
  count?: number;
  sum?: number;
  /** Histogram points: the bucket upper bounds, and the count in each bucket (one more than the bounds: the last is +Inf). */
  explicitBounds?: number[];
  bucketCounts?: number[];
}

type Loose = Record<string, unknown>;
const obj = (value: unknown): Loose => (value && typeof value === 'object' ? (value as Loose) : {});
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

export function parseMetricsExport(payload: unknown, decodeAttributes: (list: unknown) => Record<string, unknown>): ReceivedMetricPoint[] {
  const out: ReceivedMetricPoint[] = [];
  for (const rm of asArray(obj(payload).resourceMetrics).map(obj)) {
    const resource = decodeAttributes(obj(rm.resource).attributes);
    const serviceName = typeof resource['service.name'] === 'string' ? resource['service.name'] : '';
    for (const sm of asArray(rm.scopeMetrics).map(obj)) {
      for (const metric of asArray(sm.metrics).map(obj)) {
        const name = String(metric.name ?? '');
        for (const kind of ['sum', 'gauge', 'histogram'] as const) {
          if (!metric[kind]) continue;
          for (const dp of asArray(obj(metric[kind]).dataPoints).map(obj)) {
            const attributes = decodeAttributes(dp.attributes);
            if (kind === 'histogram') {
              out.push({
                serviceName, name, kind, attributes, count: Number(dp.count ?? 0), sum: Number(dp.sum ?? 0),
                explicitBounds: asArray(dp.explicitBounds).map(Number), bucketCounts: asArray(dp.bucketCounts).map(Number),
              });
            }
            else out.push({ serviceName, name, kind, attributes, value: Number(dp.asInt ?? dp.asDouble ?? 0) });
          }
        }
      }
    }
  }
  return out;
}
