import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { meetingInPairs, startNatsCluster, type NatsClusterHandle } from '@runledger/testing';
import { KvCompareAndSet } from './kv-compare-and-set';
import { NatsKvDocumentStore } from './nats-kv-document-store';
import { DocumentConflictError, type DocumentCollection } from './types';

jest.setTimeout(180_000);

interface Doc {
  by: string;
}

const KEYS = 150;
// Whether two writes overlap at the bucket's leader varies from burst to burst (a burst often lands whole on one side
// of a raft apply): several rounds, so the race is met with near certainty (without the msgID, about half the rounds
// of replaces stored both writes of some key).
const ROUNDS = 8;
const ids = (prefix: string) => Array.from({ length: KEYS }, (_, i) => `${prefix}-${i}`);

/**
 * Runs `race` with the first two writes on a revision of each key leaving together, as when both writers read the
 * key at the same moment: a delete and a create read before they write, which otherwise spreads their writes out.
 */
async function writingTogether<T>(race: () => Promise<T>): Promise<T> {
  const meet = meetingInPairs();
  const write = KvCompareAndSet.prototype.write;
  const together = jest.spyOn(KvCompareAndSet.prototype, 'write').mockImplementation(function (this: KvCompareAndSet, ...args) {
    return (args[1] > 0 ? meet(args[0].subject) : Promise.resolve()).then(() => write.apply(this, args));
  });
  try {
    return await race();
  } finally {
    together.mockRestore();
  }
}

/**
 * The document store's compare-and-set on a three-node JetStream cluster, its buckets replicated on every node as
 * provisionBus makes them (RL_KV_REPLICAS=3). nats-server before 2.11 checks a clustered write's expected last
 * subject sequence only at the stream leader before the raft proposal, so two writes on one revision in flight
 * together both passed and both were stored: a lost update each caller was told succeeded. Writers sit on different
 * nodes, so their writes reach the bucket's leader by different routes.
 */
describe('NatsKvDocumentStore on a three-node JetStream cluster', () => {
  let cluster: NatsClusterHandle;
  let a: DocumentCollection<Doc>;
  let b: DocumentCollection<Doc>;

  beforeAll(async () => {
    cluster = await startNatsCluster(3);
    // As provisionBus creates every collection's bucket with RL_KV_REPLICAS=3: reads go to the leader.
    await new Kvm(cluster.conns[0]).create('rl_doc_race', { history: 1, replicas: 3, allow_direct: false });
    a = new NatsKvDocumentStore(cluster.conns[1]).collection<Doc>('race');
    b = new NatsKvDocumentStore(cluster.conns[2]).collection<Doc>('race');
    // Both stores open the bucket first, so their writes leave together (not one side after an info round trip).
    await Promise.all([a.get('warm-up'), b.get('warm-up')]);
  });
  afterAll(() => cluster?.stop());

  it('replace is a compare-and-set: two replaces of one revision, in flight together through different nodes: exactly one succeeds, the other is a DocumentConflictError', async () => {
    let docs = (await Promise.all(ids('replace').map((id) => a.create(id, { by: 'creator' })))).map((c) => c.doc);
    for (let round = 0; round < ROUNDS; round++) {
      const outcomes = await Promise.all(docs.map((doc) => Promise.allSettled([
        a.replace(doc.id, { by: `a${round}` }, doc.revision),
        b.replace(doc.id, { by: `b${round}` }, doc.revision),
      ])));
      const stored = await Promise.all(docs.map((doc) => a.get(doc.id)));
      outcomes.forEach((pair, i) => {
        const won = pair.filter((o) => o.status === 'fulfilled');
        expect(won).toHaveLength(1);
        expect((pair.find((o) => o.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(DocumentConflictError);
        // What the winner was told is what the store holds: no write after it was lost.
        const winner = (won[0] as PromiseFulfilledResult<{ revision: number; value: Doc }>).value;
        expect({ revision: stored[i]?.revision, value: stored[i]?.value }).toEqual({ revision: winner.revision, value: winner.value });
      });
      docs = stored.map((doc) => doc!);
    }
  });

  it('delete with a revision is a compare-and-set: a delete and a replace of one revision in flight together: exactly one takes effect', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const created = await Promise.all(ids(`delete-${round}`).map((id) => a.create(id, { by: 'creator' })));
      const outcomes = await writingTogether(() => Promise.all(created.map(({ doc }) => Promise.allSettled([
        a.delete(doc.id, doc.revision),
        b.replace(doc.id, { by: 'b' }, doc.revision),
      ]))));
      const stored = await Promise.all(created.map(({ doc }) => a.get(doc.id)));
      outcomes.forEach(([deleted, replaced], i) => {
        expect([deleted.status, replaced.status].filter((s) => s === 'fulfilled')).toHaveLength(1);
        const refused = (deleted.status === 'rejected' ? deleted : replaced) as PromiseRejectedResult;
        expect(refused.reason).toBeInstanceOf(DocumentConflictError);
        expect(stored[i]?.value ?? null).toEqual(replaced.status === 'fulfilled' ? { by: 'b' } : null);
      });
    }
  });

  it('create over a deleted document: two creates in flight together through different nodes: exactly one creates, the other is given its document', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const deleted = ids(`recreate-${round}`);
      await Promise.all(deleted.map(async (id) => a.delete(id, (await a.create(id, { by: 'first' })).doc.revision)));
      // Each create tries the key as never written, then writes on the tombstone's revision it read.
      const outcomes = await writingTogether(() => Promise.all(deleted.map((id) => Promise.all([a.create(id, { by: 'a' }), b.create(id, { by: 'b' })]))));
      for (const pair of outcomes) {
        expect(pair.filter((o) => o.created)).toHaveLength(1);
        const [winner, other] = pair[0].created ? pair : [pair[1], pair[0]];
        expect({ revision: other.doc.revision, value: other.doc.value }).toEqual({ revision: winner.doc.revision, value: winner.doc.value });
      }
    }
  });

  it('a write on a taken revision is ours only if the stored message is this write\'s own (a repeat after a lost ack), never another writer\'s with the same value', async () => {
    const jsm = await jetstreamManager(cluster.conns[0]);
    // The msgID check needs the bucket's duplicate window (nats-server's 2 min default: Kvm.create sets none).
    expect((await jsm.streams.info('KV_rl_doc_race')).config.duplicate_window).toBeGreaterThan(0);
    const { doc } = await a.create('own-write', { by: 'creator' });
    const at = { stream: 'KV_rl_doc_race', subject: '$KV.rl_doc_race.own-write' };
    const cas = new KvCompareAndSet(cluster.conns[1]);
    const value = JSON.stringify({ by: 'a' });
    const first = await cas.write(at, doc.revision, value, 'write-1');
    expect(first).toBeGreaterThan(doc.revision);
    expect(await cas.write(at, doc.revision, value, 'write-1')).toBe(first);
    expect(await new KvCompareAndSet(cluster.conns[2]).write(at, doc.revision, value, 'write-2')).toBeNull();
    expect(await cas.write(at, doc.revision, null, 'write-1')).toBeNull(); // the same id on another operation
    expect(await a.get('own-write')).toEqual({ id: 'own-write', revision: first, value: { by: 'a' } });
  });
});
