import { NodeSDK } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

let sdk: NodeSDK | undefined;

/**
 * Starts OpenTelemetry for one service. The OTLP exporter is configured by the standard `OTEL_*`
 * variables (endpoint, protocol, headers); with no endpoint and no explicit exporter choice we still
 * install the SDK (so context propagates across services) but export nothing, instead of retrying a
 * collector that is not there.
 */
export function startTelemetry(serviceName: string): void {
  if (sdk) return;
  const exporterChoice = process.env.OTEL_TRACES_EXPORTER;
  const endpointConfigured = Boolean(process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const exportTraces = exporterChoice ? exporterChoice !== 'none' : endpointConfigured;
  sdk = new NodeSDK({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: process.env.OTEL_SERVICE_NAME ?? serviceName }),
    spanProcessors: exportTraces ? [new BatchSpanProcessor(new OTLPTraceExporter())] : [],
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
