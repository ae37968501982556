import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { FixedClock } from '@runledger/kernel';
import { startNatsCluster, type NatsClusterHandle } from '@runledger/testing';
import { aggregateRef, ConcurrencyError, ensureLogStream, EventLog } from './index';

jest.setTimeout(180_000);

/**
 * The log's one-writer-per-version guarantee on a three-node JetStream cluster. nats-server before 2.11 checks a
 * clustered append's expected subject sequence against what is stored before it proposes the message, so two appends
 * on the same version in flight together would both be stored (the deployed suite once saw a run with two terminal
 * events under a NATS node kill). The log's msgID per version makes the second one a duplicate when stored.
 */
describe('EventLog on a three-node JetStream cluster', () => {
  let cluster: NatsClusterHandle;
  let conns: readonly NatsConnection[];

  beforeAll(async () => {
    cluster = await startNatsCluster(3);
    conns = cluster.conns;
    await ensureLogStream(await jetstreamManager(conns[0]), { num_replicas: 3 });
  });
  afterAll(() => cluster?.stop());

  const logOn = async (nc: NatsConnection) => new EventLog(jetstream(nc), await jetstreamManager(nc), { producer: 'spec', clock: new FixedClock(new Date('2026-01-01T00:00:00Z')) });

  it('Serialised per aggregate: two appends on the same version, in flight together through different nodes: exactly one is stored, the other is a ConcurrencyError', async () => {
    const [a, b] = [await logOn(conns[1]), await logOn(conns[2])];
    const refs = Array.from({ length: 150 }, (_, i) => aggregateRef('run', `race-${i}`));
    const opened = await Promise.all(refs.map((ref) => a.append(ref, [{ type: 'Opened', data: {} }], { commandId: `open:${ref.id}`, expectedVersion: 0 })));
    // Both writers decided on the version they read; each sends its own ending.
    const outcomes = await Promise.all(refs.map((ref, i) => Promise.allSettled([
      a.append(ref, [{ type: 'Completed', data: {} }], { commandId: `complete:${ref.id}`, expectedVersion: opened[i].version }),
      b.append(ref, [{ type: 'Cancelled', data: {} }], { commandId: `cancel:${ref.id}`, expectedVersion: opened[i].version }),
    ])));
    for (const pair of outcomes) {
      expect(pair.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const refused = pair.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      expect(refused.reason).toBeInstanceOf(ConcurrencyError);
    }
    const endings = await Promise.all(refs.map(async (ref) => (await a.read(ref)).map((e) => e.type)));
    expect(endings.filter((types) => types.length !== 2)).toEqual([]);
  });

  it('Effects happen once: the winner retrying its command on the version it decided on is answered with its stored commit, nothing appended', async () => {
    const [a, b] = [await logOn(conns[0]), await logOn(conns[2])];
    const ref = aggregateRef('run', 'retry-after-race');
    const opened = await a.append(ref, [{ type: 'Opened', data: {} }], { commandId: 'open', expectedVersion: 0 });
    const won = await b.append(ref, [{ type: 'Completed', data: {} }], { commandId: 'complete', expectedVersion: opened.version });
    const retried = await a.append(ref, [{ type: 'Completed', data: {} }], { commandId: 'complete', expectedVersion: opened.version });
    expect({ duplicate: retried.duplicate, version: retried.version }).toEqual({ duplicate: true, version: won.version });
    await expect(a.append(ref, [{ type: 'Cancelled', data: {} }], { commandId: 'cancel', expectedVersion: opened.version })).rejects.toBeInstanceOf(ConcurrencyError);
    expect((await a.read(ref)).map((e) => e.type)).toEqual(['Opened', 'Completed']);
  });

  it('Issue 22 the admin replays a replicated log through one consumer (one replica, in memory) event for event as the direct gets do, through any node', async () => {
    const fold = (acc: string[], e: { seq: number; index: number; metadata: { event_id: string } }) => (acc.push(`${e.seq}/${e.index}/${e.metadata.event_id}`), acc);
    const direct = (await (await logOn(conns[0])).replay(fold, [])).state;
    const nc = conns[2];
    const admin = new EventLog(jetstream(nc), await jetstreamManager(nc), { producer: 'spec', clock: new FixedClock(new Date('2026-01-01T00:00:00Z')), mayCreateConsumers: true });
    expect(direct.length).toBeGreaterThan(300);
    expect((await admin.replay(fold, [])).state).toEqual(direct);
    // Read through a consumer of its own, not the direct gets' fallback: it is there while the range is read.
    const jsm = await jetstreamManager(nc);
    const during: string[] = [];
    await admin.messages('rl.log.>', 1, 1, async () => {
      for await (const c of jsm.consumers.list('RUNLEDGER_LOG')) during.push(c.name);
    });
    expect(during.filter((name) => name.startsWith('rl_read_'))).toHaveLength(1);
  });
});
