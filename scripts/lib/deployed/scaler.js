'use strict';
/**
 * KEDA's part, played by the deployed test: a ScaledObject's `nats-jetstream` trigger read the way KEDA's NATS
 * JetStream scaler reads it (kedacore/keda pkg/scalers/nats_jetstream_scaler.go), and the replica count the HPA that
 * KEDA drives would set from it. Only the lag trigger is evaluated (the CPU trigger beside it needs a metrics server).
 */

/**
 * The consumer's lag as the scaler computes it: `GET <node>:8222/jsz?acc=<account>&consumers=true&config=true` on the
 * node that leads the consumer (found by asking each node's /varz for its server_name), lag = num_pending +
 * num_ack_pending of the consumer named in the trigger, on the stream named in it.
 */
async function jetStreamLag(trigger, monitoringEndpoints) {
  const m = trigger.metadata;
  const scheme = m.useHttps === 'true' ? 'https' : 'http';
  for (const endpoint of monitoringEndpoints) {
    const get = async (p) => (await fetch(`${scheme}://${endpoint}${p}`, { signal: AbortSignal.timeout(5_000) })).json();
    const node = (await get('/varz')).server_name;
    const jsz = await get(`/jsz?acc=${encodeURIComponent(m.account)}&consumers=true&config=true`);
    const stream = (jsz.account_details ?? []).find((a) => a.name === m.account)?.stream_detail?.find((s) => s.name === m.stream);
    const consumer = stream?.consumer_detail?.find((c) => c.name === m.consumer);
    if (consumer && (consumer.cluster?.leader ?? node) === node) return { lag: consumer.num_pending + consumer.num_ack_pending, leader: node };
  }
  throw new Error(`no node leads consumer ${m.consumer} of ${m.stream} (account ${m.account})`);
}

/**
 * The replicas KEDA's HPA sets for a lag (an External metric with an AverageValue target of lagThreshold):
 * ceil(lag / lagThreshold), kept at the current count within the HPA's 10 % tolerance, bounded by the ScaledObject's
 * minReplicaCount and maxReplicaCount; at or below activationLagThreshold the scaler is inactive (minReplicaCount).
 */
function desiredReplicas(scaledObject, trigger, lag, current) {
  const { minReplicaCount = 0, maxReplicaCount = 100 } = scaledObject.spec;
  const target = Number(trigger.metadata.lagThreshold ?? 10);
  const active = lag > Number(trigger.metadata.activationLagThreshold ?? 0);
  const ratio = lag / target / Math.max(1, current);
  const wanted = !active ? minReplicaCount : Math.abs(ratio - 1) <= 0.1 ? current : Math.ceil(lag / target);
  return Math.min(maxReplicaCount, Math.max(minReplicaCount, wanted));
}

module.exports = { jetStreamLag, desiredReplicas };
