import { AckPolicy, DeliverPolicy, type ConsumerInfo, type JetStreamManager } from '@nats-io/jetstream';
import { jsErrorCode, LOG_STREAM } from '@runledger/event-log';
import type { HandedPosition } from './consumer-lease';
import type { LogConsumerOptions } from './handlers';

/** The longest a log handler may keep a message by heartbeats before it is considered hung. */
export const MAX_HANDLER_MS = 5 * 60_000;

/**
 * How long one pull of a durable's consumption lasts (its heartbeats come every half of it). A pull the stream's
 * cluster dropped (its consumer's leader moved to another node: a 409 the client waits out) is noticed after two missed
 * heartbeats and pulled again: 5 s here instead of the client's default 30 s, during which no delivery came (chaos
 * --cluster: every run stalled for 30 s after a node was killed). The cost is one pull per durable every 5 s when idle.
 */
export const PULL_EXPIRES_MS = 5_000;

/** Backoff for a failed delivery: 250 ms doubling to 15 s. */
export function redeliveryDelayMs(deliveryCount: number): number {
  return Math.min(15_000, 250 * 2 ** Math.max(0, deliveryCount - 1));
}

/**
 * Makes sure the durable consumer of a log handler exists with the settings its code asks for, and says its ack
 * policy. The bootstrap creates the declared ones (provisionDurable: the table's ack policy); one missing here (a
 * test's own bus) is created with explicit acks. A batch consumer settles either policy (settleInOrder). Settings that
 * can change in place (ack wait, max ack pending) follow the code instead of being frozen at first creation.
 */
export async function ensureDurable(jsm: JetStreamManager, filterSubject: string, opts: LogConsumerOptions, ackWaitMs: number): Promise<AckPolicy> {
  // A batch consumer may hold its acks while its handler's deferred work is done (DeferredSettlement: the ledger's held
  // rows, up to ROW_HOLD_MS): room for several batches delivered meanwhile, so holding does not stall delivery.
  const tunable = { ack_wait: ackWaitMs * 1_000_000, max_ack_pending: Math.max(64, (opts.concurrency ?? 1) * 4, (opts.batch ?? 0) * 8) };
  const existing = await durableInfo(jsm, opts.durable);
  if (!existing) {
    // Only the bootstrap may create it where the permissions table holds (provisionDurable); a test's own bus may.
    const created = pullDurable(opts.durable, filterSubject);
    await jsm.consumers.add(LOG_STREAM, { ...created, ...tunable }).catch((err: unknown) => {
      if (/permission/i.test(String((err as Error).message))) throw new Error(`durable consumer ${opts.durable} does not exist and this identity may not create it: run the bootstrap (npm start does) as the admin`);
      throw err;
    });
    return created.ack_policy;
  }
  if (existing.config.deliver_subject) throw new Error(`durable consumer ${opts.durable} pushes to ${existing.config.deliver_subject}: only a pull consumer is ours (the admin deletes it, the bootstrap creates it again)`);
  if (existing.config.ack_policy === AckPolicy.All && !opts.batch) throw new Error(`durable consumer ${opts.durable} acks all, which only a batch consumer (in log order) may: give it a new durable name`);
  if (existing.config.filter_subject !== filterSubject) {
    throw new Error(`durable consumer ${opts.durable} filters ${existing.config.filter_subject}, not ${filterSubject}: give the new filter a new durable name`);
  }
  if (existing.config.ack_wait !== tunable.ack_wait || existing.config.max_ack_pending !== tunable.max_ack_pending) {
    await jsm.consumers.update(LOG_STREAM, opts.durable, tunable);
  }
  return existing.config.ack_policy;
}

/** A declared durable as the bootstrap creates it: pull (no deliver subject), the table's filter, every event. */
function pullDurable(durable: string, filterSubject: string, ackPolicy: AckPolicy = AckPolicy.Explicit) {
  return { durable_name: durable, filter_subject: filterSubject, ack_policy: ackPolicy, deliver_policy: DeliverPolicy.All, max_deliver: -1 };
}

async function durableInfo(jsm: JetStreamManager, durable: string) {
  return jsm.consumers.info(LOG_STREAM, durable).catch((err: unknown) => {
    if (jsErrorCode(err) === 10014) return null; // consumer not found
    throw err;
  });
}

/**
 * The bootstrap's part (deploy/nats/permissions.yaml `log.durables`): each declared durable exists as a pull consumer
 * with its filter and ack policy (`acks: all`, else explicit) before its owner starts. The owner may only tune it:
 * nats-server refuses to turn a pull consumer into a push one, while a consumer its owner created could push the log
 * anywhere (the body, not the subject, decides).
 */
export async function provisionDurable(jsm: JetStreamManager, durable: string, filterSubject: string, ackAll = false): Promise<void> {
  const existing = await durableInfo(jsm, durable);
  if (!existing) {
    await jsm.consumers.add(LOG_STREAM, pullDurable(durable, filterSubject, ackAll ? AckPolicy.All : AckPolicy.Explicit));
    return;
  }
  if (existing.config.deliver_subject) throw new Error(`durable consumer ${durable} pushes to ${existing.config.deliver_subject}: delete it (as the admin) and run the bootstrap again`);
  if (existing.config.filter_subject !== filterSubject) await migrateFilter(jsm, durable, existing.config.filter_subject ?? '', filterSubject);
  if (ackAll && existing.config.ack_policy === AckPolicy.Explicit) await migrateToAckAll(jsm, durable);
}

/**
 * An explicit-ack durable of an earlier release whose table entry now says `acks: all` (issue 22: the ledger's). The
 * server cannot change a policy in place, so it is created again, ack-all, at its ack floor + 1, with its filter and
 * tuning: nothing acked is delivered again (nothing is chained or indexed twice) and nothing is skipped; what was
 * delivered and not acked, and what was acked above the floor, is delivered again (the owner handles redeliveries:
 * its chain writer and read models are idempotent). An owner still running acks its deliveries on the new durable
 * (same name), and an ack the old one took after its floor was read is only a redelivery.
 */
async function migrateToAckAll(jsm: JetStreamManager, durable: string): Promise<void> {
  const info = await jsm.consumers.info(LOG_STREAM, durable);
  await jsm.consumers.delete(LOG_STREAM, durable);
  const { filter_subject, ack_wait, max_ack_pending } = info.config;
  await jsm.consumers.add(LOG_STREAM, { ...pullDurable(durable, filter_subject ?? '', AckPolicy.All), ack_wait, max_ack_pending, ...resumeAfter(info) });
}

/** Where a durable created again resumes: after what it settled (settledThrough), or at the log's start. */
function resumeAfter(info: ConsumerInfo) {
  const settled = settledThrough(info);
  return settled > 0 ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: settled + 1 } : { deliver_policy: DeliverPolicy.All };
}

/**
 * A declared durable whose filter the table changed (issue 23: the ledger's rl.log.run.* became rl.log.run.> when run
 * subjects got their owner's name). Only a wider filter is migrated: nothing delivered before can then be missing. It
 * keeps its position: nats-server 2.9.10 changes a filter in place (checked: the delivered and ack floors stay); a
 * server that refuses gets the durable created again at its ack floor + 1, so what was delivered and not acked is
 * delivered again (the owner handles redeliveries), nothing acked is delivered twice and nothing is skipped.
 */
async function migrateFilter(jsm: JetStreamManager, durable: string, from: string, to: string): Promise<void> {
  if (!widens(from, to)) throw new Error(`durable consumer ${durable} filters ${from}, not ${to} as the permissions table says (only a wider filter is migrated)`);
  try {
    await jsm.consumers.update(LOG_STREAM, durable, { filter_subject: to });
    return;
  } catch {
    // Recreated below.
  }
  const info = await jsm.consumers.info(LOG_STREAM, durable);
  await jsm.consumers.delete(LOG_STREAM, durable);
  await jsm.consumers.add(LOG_STREAM, { ...pullDurable(durable, to, info.config.ack_policy), ...resumeAfter(info) });
}

/** Whether every subject `from` matches, `to` matches too (the migrations the table makes: a trailing `*` to `>`). */
function widens(from: string, to: string): boolean {
  return to.endsWith('.>') && from.startsWith(to.slice(0, -1));
}

/**
 * The stream range a new holder of a batch consumer reads from the log before any delivery. What a previous holder
 * was handed and never acked (it died, or lost the lease): the server gives those events back only after ack_wait,
 * after newer ones, which would break log order, and on an ack-all consumer acking a newer event would settle them
 * unhandled. And, from `previous` (the position the lease recorded, see HandedPosition), what the durable delivered
 * while no holder saw it: to another puller holding the consumer's key, acked so that the server never hands it
 * again (while a holder runs, BatchConsumer.takenBefore reads such deliveries back).
 */
export function catchUpRange(info: ConsumerInfo, previous: HandedPosition | null): { from: number; to: number } | null {
  const to = info.delivered.stream_seq;
  const settled = settledThrough(info);
  const unsettled = info.num_ack_pending > 0 && to > settled ? settled + 1 : Infinity;
  // The previous holder's position is this incarnation's and behind what the durable has delivered since: the rest
  // went to it after it last wrote the lease, or to another puller holding the consumer's key, which may have acked it.
  const sinceHanded = previous && previous.created === info.created && previous.consumer_seq < info.delivered.consumer_seq ? previous.stream_seq + 1 : Infinity;
  const from = Math.min(unsettled, sinceHanded);
  return from <= to ? { from, to } : null;
}

/**
 * The stream sequence a durable has settled everything up to: its ack floor, or, for one that started at a sequence
 * (created again by a migration) and has acked nothing since, the sequence before its start: nats-server 2.9 reports
 * such a durable's ack floor as 0, though nothing before its start was ever its to deliver.
 */
function settledThrough(info: ConsumerInfo): number {
  const started = info.config.deliver_policy === DeliverPolicy.StartSequence ? (info.config.opt_start_seq ?? 1) - 1 : 0;
  return Math.max(info.ack_floor.stream_seq, started);
}
