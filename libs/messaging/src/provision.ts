import type { NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { Objm, StorageType } from '@nats-io/obj';
import { ensureLogStream } from '@runledger/event-log';
import { ensureKvBucket, KV_HISTORY } from '@runledger/document-store';
import { provisionDataKeys } from './data-keys';
import { provisionDurable } from './durable-consumer';
import { settingNumber } from '@runledger/kernel';

/** What the bootstrap identity creates before any service starts (deploy/nats/permissions.yaml: kv, object_stores). */
export interface BusLayout {
  kvBuckets: string[];
  objectStores: string[];
  /** The log's durable consumers (permissions.yaml `log.durables`): created here, never by their owners. */
  durables?: Record<string, { filter: string; batch?: boolean; acks?: 'all' }>;
  /** Replicas of each bucket and object store: 3 on a three-node cluster (RL_KV_REPLICAS), 1 on one server. */
  replicas?: number;
}

/**
 * Creates the log stream, its declared durable consumers, the document-store buckets and the object stores, or checks the ones there.
 * Only the admin identity may: services are refused stream creation, so none can capture another's subjects.
 */
export async function provisionBus(nc: NatsConnection, layout: BusLayout): Promise<void> {
  const jsm = await jetstreamManager(nc);
  await ensureLogStream(jsm);
  for (const [durable, d] of Object.entries(layout.durables ?? {})) await provisionDurable(jsm, durable, d.filter, d.acks === 'all');
  const replicas = layout.replicas ?? settingNumber('RL_KV_REPLICAS');
  // With replicas, reads go to each bucket's leader: a replica that lags must not make a compare-and-set read stale.
  // KV_HISTORY revisions per key and no rollups, also on a bucket an earlier release created with history 1: a value the
  // bus stores on a key (README, guarantees) is read past, and cannot push the writer's value out (kv-writer.ts).
  for (const bucket of layout.kvBuckets) {
    await ensureKvBucket(jsm, bucket, { history: KV_HISTORY, replicas, direct: replicas === 1, description: `Runledger document collection "${bucket}"` });
  }
  await provisionDataKeys(nc, replicas);
  const objm = new Objm(nc);
  for (const store of layout.objectStores) {
    await objm.create(store, { storage: StorageType.File, replicas });
    // No rollups: artifacts are written without one (object-descriptions.ts), and a copy of a description the bus
    // stored on another object's subject would otherwise delete every message there.
    const { config } = await jsm.streams.info(`OBJ_${store}`);
    if (config.allow_rollup_hdrs) await jsm.streams.update(`OBJ_${store}`, { ...config, allow_rollup_hdrs: false });
  }
}
