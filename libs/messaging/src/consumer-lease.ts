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
  /** How far the holder had handed the durable's deliveries over, when it last wrote the lease (the next holder's start). */
  handed?: HandedPosition;
}

/**
 * How far a holder had handed a durable's deliveries over to its handler: the durable's delivery (consumer) sequence
 * and the stream sequence of that delivery, in the durable's incarnation `created` (a durable made again numbers its
 * deliveries from 1). Kept with the lease: deliveries after it that the next holder is not handed again (acked by
 * someone else meanwhile) are read back from the log (see bindLogConsumer).
 */
export interface HandedPosition {
  created: string;
  consumer_seq: number;
  stream_seq: number;
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
  /** Where this holder has handed the durable over to (see follow); the previous holder's until this one knows its own. */
  private handed: HandedPosition | null = null;
  private position: () => HandedPosition | null = () => null;
  private readonly cas: KvCompareAndSet;
  private readonly at: { stream: string; subject: string };

  constructor(private readonly nc: NatsConnection, private readonly key: string, private readonly ttlMs = 15_000) {
    this.cas = new KvCompareAndSet(nc);
    this.at = { stream: `KV_${LEASE_BUCKET}`, subject: `$KV.${LEASE_BUCKET}.${key}` };
  }

  /** Where the consumption holding this lease has handed the durable over to: written with each renewal and the release. */
  follow(position: () => HandedPosition | null): void {
    this.position = position;
  }

  /**
   * Runs `start` whenever this process holds the lease (with how far the lease's last writer had handed the durable
   * over) and the function it returned once it loses it; returns when `closing()` says so. Failures to reach the
   * bucket only delay: they are retried.
   */
  async hold(start: (previous: HandedPosition | null) => Promise<() => Promise<void>>, closing: () => boolean): Promise<void> {
    const kv = await this.bucket(closing);
    while (kv && !closing()) {
      const acquired = await this.acquire().catch(() => null);
      if (acquired === null) {
        await sleep(this.ttlMs / 3);
        continue;
      }
      this.handed = acquired.handed;
      const stop = await start(acquired.handed).catch(() => null);
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
  private async acquire(): Promise<{ revision: number; until: number; handed: HandedPosition | null } | null> {
    const until = Date.now() + this.ttlMs;
    // Read at the bucket's leader (a replica that lags must not show a lapsed lease).
    const current = await readWriterRevision(await this.cas.manager(), this.at.stream, this.at.subject, false);
    const lease = current && !current.doc.deleted ? (current.doc.value as Lease) : null;
    if (lease && lease.holder !== this.holder && lease.until > Date.now()) return null;
    const handed = handedPositionOf(lease?.handed);
    // Over whatever the key holds (nothing, a tombstone, a lapsed or our own lease): another writer on it wins or we do.
    const revision = await this.cas.write(this.at, current?.revision ?? 0, this.encode(until, handed));
    return revision === null ? null : { revision, until, handed };
  }

  /** The lease as written now: the position handed over so far is kept (none yet: the one this holder started from). */
  private encode(until: number, handed = this.position() ?? this.handed): string {
    if (handed) this.handed = handed;
    return JSON.stringify({ holder: this.holder, until, ...(handed ? { handed } : {}) } satisfies Lease);
  }
}

/** A lease's recorded position, if it is one (a lease an earlier release wrote has none). */
function handedPositionOf(v: unknown): HandedPosition | null {
  const p = v as Partial<HandedPosition> | undefined;
  return p && typeof p.created === 'string' && Number.isSafeInteger(p.consumer_seq) && Number.isSafeInteger(p.stream_seq) ? (p as HandedPosition) : null;
}
