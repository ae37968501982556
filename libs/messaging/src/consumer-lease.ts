import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { Kvm, type KV } from '@nats-io/kv';
import { KvCompareAndSet, readWriterRevision } from '@runledger/document-store';

/** The bucket of consumer leases (the `consumer_leases` collection of deploy/nats/permissions.yaml, created by the bootstrap). */
export const LEASE_BUCKET = 'rl_doc_consumer_leases';

interface Lease {
  holder: string;
  /** Epoch ms after which others may take it. */
  until: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One holder at a time for a durable consumer whose handler must see the log in order (the audit chain): with two
 * instances of a service, the one holding the lease consumes and the other stands by, taking over once the lease
 * lapses (the holder crashed or lost the bus). The lease is a key of a KV bucket written with compare-and-set (one
 * write per revision also on a replicated bucket of a nats-server 2.9 cluster: KvCompareAndSet), so two instances can
 * never both believe they hold it; the holder renews it every third of its lifetime and stops consuming when it cannot
 * renew before it lapses.
 */
export class ConsumerLease {
  private readonly holder = randomUUID();
  /** While held: how to give the lease up at once (a graceful stop need not make the next holder wait it out). */
  private held?: { revision: number };
  private readonly cas: KvCompareAndSet;
  private readonly at: { stream: string; subject: string };

  constructor(private readonly nc: NatsConnection, private readonly key: string, private readonly ttlMs = 15_000) {
    this.cas = new KvCompareAndSet(nc);
    this.at = { stream: `KV_${LEASE_BUCKET}`, subject: `$KV.${LEASE_BUCKET}.${key}` };
  }

  /**
   * Runs `start` whenever this process holds the lease and the function it returned once it loses it; returns when
   * `closing()` says so. Failures to reach the bucket only delay: they are retried.
   */
  async hold(start: () => Promise<() => Promise<void>>, closing: () => boolean): Promise<void> {
    const kv = await this.bucket(closing);
    while (kv && !closing()) {
      const acquired = await this.acquire().catch(() => null);
      if (acquired === null) {
        await sleep(this.ttlMs / 3);
        continue;
      }
      const stop = await start().catch(() => null);
      if (!stop) {
        await sleep(this.ttlMs / 3); // the bus is away: we still hold the lease, start again on the next try
        continue;
      }
      let { until } = acquired;
      const held = { revision: acquired.revision };
      this.held = held;
      while (!closing()) {
        await sleep(this.ttlMs / 3);
        const renewed = Date.now() + this.ttlMs;
        try {
          const revision = await this.cas.write(this.at, held.revision, this.encode(renewed));
          // Another holder took it (the revision moved on): stop at once.
          if (revision === null) break;
          held.revision = revision;
          until = renewed; // only a renewal the bucket accepted extends what we hold
        } catch {
          // The bus is away: keep consuming only while the lease we last got has not (nearly) lapsed.
          if (Date.now() > until - this.ttlMs / 3) break;
        }
      }
      this.held = undefined;
      await stop();
    }
  }

  /** Gives the lease up now (a graceful shutdown, after consuming stopped): another instance may take it at once. */
  async release(): Promise<void> {
    const held = this.held;
    this.held = undefined;
    if (held) await this.cas.write(this.at, held.revision, this.encode(0)).catch(() => undefined);
  }

  private async bucket(closing: () => boolean): Promise<KV | null> {
    while (!closing()) {
      try {
        return await new Kvm(this.nc).open(LEASE_BUCKET);
      } catch {
        await sleep(this.ttlMs / 3);
      }
    }
    return null;
  }

  /**
   * The lease's revision when this process now holds it; null when another holder's lease is running or won the race.
   * The lease is the key's latest writer revision: an answer the bus stored after it (README, guarantees) neither
   * reads as a lapsed lease nor blocks the next holder (its write goes past it).
   */
  private async acquire(): Promise<{ revision: number; until: number } | null> {
    const until = Date.now() + this.ttlMs;
    // Read at the bucket's leader (a replica that lags must not show a lapsed lease).
    const current = await readWriterRevision(await this.cas.manager(), this.at.stream, this.at.subject, false);
    if (current && !current.doc.deleted) {
      const lease = current.doc.value as Lease;
      if (lease.holder !== this.holder && lease.until > Date.now()) return null;
    }
    // Over whatever the key holds (nothing, a tombstone, a lapsed or our own lease): another writer on it wins or we do.
    const revision = await this.cas.write(this.at, current?.revision ?? 0, this.encode(until));
    return revision === null ? null : { revision, until };
  }

  private encode(until: number): string {
    return JSON.stringify({ holder: this.holder, until } satisfies Lease);
  }
}
