import { NodeSDK } from '@opentelemetry/sdk-node';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

let sdk: NodeSDK | undefined;

/**
 * Starts OpenTelemetry for one service. The exporter is chosen and configured by the standard `OTEL_*`
 * variables (OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL = http/protobuf,
 * http/json or grpc, OTEL_BSP_*). With no endpoint and no explicit exporter we still install the SDK, so
 * trace context propagates across services, but export nothing instead of retrying an absent collector.
 */
export function startTelemetry(serviceName: string): void {
  if (sdk) return;
  const endpointConfigured = Boolean(process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  if (!process.env.OTEL_TRACES_EXPORTER && !endpointConfigured) process.env.OTEL_TRACES_EXPORTER = 'none';
  // Metrics go where the traces go (OTLP, every OTEL_METRIC_EXPORT_INTERVAL ms); with no endpoint, nowhere.
  process.env.OTEL_METRICS_EXPORTER ??= endpointConfigured ? 'otlp' : 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  sdk = new NodeSDK({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: process.env.OTEL_SERVICE_NAME ?? serviceName }),
    instrumentations: [],
  });
  sdk.start();
}

/** Flushes pending spans; called on graceful shutdown. */
export async function stopTelemetry(): Promise<void> {
  const current = sdk;
  sdk = undefined;
  await current?.shutdown().catch(() => undefined);
}
