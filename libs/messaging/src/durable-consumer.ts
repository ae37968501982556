import { AckPolicy, DeliverPolicy, type JetStreamManager } from '@nats-io/jetstream';
import { jsErrorCode, LOG_STREAM } from '@runledger/event-log';
import type { LogConsumerOptions } from './handlers';

/**
 * Makes sure the durable consumer of a log handler exists with the settings its code asks for. A batch consumer
 * handles in log order, so an ack settles every event before it too (AckPolicy.All: a batch acked in order is settled
 * up to its last ack that arrived); a consumer created before keeps its ack policy (the server cannot change it). Settings
 * that can change in place (ack wait, max ack pending) follow the code instead of being frozen at first creation.
 */
export async function ensureDurable(jsm: JetStreamManager, filterSubject: string, opts: LogConsumerOptions, ackWaitMs: number): Promise<void> {
  const tunable = { ack_wait: ackWaitMs * 1_000_000, max_ack_pending: Math.max(64, (opts.concurrency ?? 1) * 4, (opts.batch ?? 0) * 2) };
  const existing = await jsm.consumers.info(LOG_STREAM, opts.durable).catch((err: unknown) => {
    if (jsErrorCode(err) === 10014) return null; // consumer not found
    throw err;
  });
  if (!existing) {
    await jsm.consumers.add(LOG_STREAM, {
      durable_name: opts.durable, filter_subject: filterSubject, ack_policy: opts.batch ? AckPolicy.All : AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, max_deliver: -1, ...tunable,
    });
    return;
  }
  if (existing.config.ack_policy === AckPolicy.All && !opts.batch) throw new Error(`durable consumer ${opts.durable} acks all, which only a batch consumer (in log order) may: give it a new durable name`);
  if (existing.config.filter_subject !== filterSubject) {
    throw new Error(`durable consumer ${opts.durable} filters ${existing.config.filter_subject}, not ${filterSubject}: give the new filter a new durable name`);
  }
  if (existing.config.ack_wait !== tunable.ack_wait || existing.config.max_ack_pending !== tunable.max_ack_pending) {
    await jsm.consumers.update(LOG_STREAM, opts.durable, tunable);
  }
}

/**
 * The stream range a previous holder of a batch consumer was handed and never acked (it died, or lost the lease).
 * The server gives those events back only after ack_wait, after newer ones, which would break log order; and on an
 * ack-all consumer, acking a newer event would settle them unhandled. So the new holder reads them first.
 */
export async function unsettledRange(jsm: JetStreamManager, durable: string): Promise<{ from: number; to: number } | null> {
  const info = await jsm.consumers.info(LOG_STREAM, durable);
  if (info.num_ack_pending === 0 || info.delivered.stream_seq <= info.ack_floor.stream_seq) return null;
  return { from: info.ack_floor.stream_seq + 1, to: info.delivered.stream_seq };
}
