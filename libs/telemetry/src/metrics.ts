import { metrics, ObservableResult } from '@opentelemetry/api';

/**
 * Runledger's metrics, one definition each. They are exported over OTLP with the traces when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set (every OTEL_METRIC_EXPORT_INTERVAL ms, default 60 s); without it the
 * instruments are no-ops. Names follow the OpenTelemetry convention `<namespace>.<thing>` with units.
 */
const meter = () => metrics.getMeter('runledger');

/**
 * Bucket bounds of every duration histogram, in seconds (the unit they record in): from 5 ms, for a request answered
 * from memory, to 10 minutes, for a workflow step waiting on a model; the SDK's default bounds are milliseconds (0 to
 * 10,000), which would put every observation in its first buckets and leave no percentile to read.
 */
export const DURATION_BUCKETS_S: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

const seconds = (name: string, description: string) => meter().createHistogram(name, { unit: 's', description, advice: { explicitBucketBoundaries: [...DURATION_BUCKETS_S] } });

let instruments: ReturnType<typeof create> | undefined;
function create() {
  const m = meter();
  return {
    runsStarted: m.createCounter('runledger.runs.started', { description: 'Runs created (RunCreated), by agent and run kind.' }),
    runsEnded: m.createCounter('runledger.runs.ended', { description: 'Runs that reached their outcome, by agent, run kind and status (completed, failed, denied, cancelled).' }),
    requestDuration: seconds('runledger.request.duration', 'Time a request handler took, by subject and outcome.'),
    stepDuration: seconds('runledger.step.duration', 'Time one workflow step of an agent run took, by agent and step.'),
    deadLetters: m.createCounter('runledger.deadletters', { description: 'Messages a durable consumer gave up on, by consumer.' }),
    consumerLag: m.createObservableGauge('runledger.consumer.lag', { unit: '{message}', description: 'Log messages a durable consumer has not processed yet (pending plus unacknowledged).' }),
  };
}

/** The instruments, created on first use (after the SDK is started, so they export). */
export function runledgerMetrics(): ReturnType<typeof create> {
  instruments ??= create();
  return instruments;
}

/** Counts a run event: RunCreated as started, a terminal event as ended with its status. Call once per event. */
export function recordRunEvent(type: string, run: { agent_name: string | null; run_kind: string | null; status: string }): void {
  const attrs = { 'runledger.agent': run.agent_name ?? 'unknown', 'runledger.run_kind': run.run_kind ?? 'unknown' };
  if (type === 'RunCreated') runledgerMetrics().runsStarted.add(1, attrs);
  else if (['RunCompleted', 'RunFailed', 'RunDenied', 'RunCancelled'].includes(type)) runledgerMetrics().runsEnded.add(1, { ...attrs, 'runledger.status': run.status });
}

/** Reports a consumer's lag at each export; `read` returns null when the consumer cannot be read now. */
export function observeConsumerLag(durable: string, read: () => Promise<number | null>): void {
  runledgerMetrics().consumerLag.addCallback(async (result: ObservableResult) => {
    const lag = await read().catch(() => null);
    if (lag !== null) result.observe(lag, { 'messaging.consumer.group.name': durable });
  });
}
