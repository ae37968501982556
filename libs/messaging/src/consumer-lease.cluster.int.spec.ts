import { Kvm } from '@nats-io/kv';
import { KvCompareAndSet } from '@runledger/document-store';
import { meetingInPairs, startNatsCluster, waitUntil, type NatsClusterHandle } from '@runledger/testing';
import { ConsumerLease, LEASE_BUCKET } from './consumer-lease';

jest.setTimeout(180_000);

const KEYS = 100;
const ROUNDS = 3;

/**
 * The consumer lease on a three-node JetStream cluster, its bucket replicated on every node as provisionBus makes it
 * (RL_KV_REPLICAS=3). nats-server before 2.11 checks a clustered write's expected revision only at the bucket's leader
 * before the raft proposal: two instances taking a lapsed lease together both passed and both consumed.
 */
describe('Issue 10 beyond one machine: ConsumerLease on a three-node JetStream cluster', () => {
  let cluster: NatsClusterHandle;
  let closing = false;

  beforeAll(async () => {
    cluster = await startNatsCluster(3);
    await new Kvm(cluster.conns[0]).create(LEASE_BUCKET, { history: 1, replicas: 3, allow_direct: false });
  });
  afterAll(async () => {
    closing = true;
    jest.restoreAllMocks();
    await cluster?.stop();
  });

  it('Issue 10 beyond one machine: two instances on different nodes take a lapsed lease together: exactly one consumes', async () => {
    // Each instance's first take is one compare-and-set write: the two of a key leave together (as two instances
    // taking a lapsed lease at the same moment), and once both have settled who consumes is decided.
    const meet = meetingInPairs();
    const settled = new Map<string, number>();
    const write = KvCompareAndSet.prototype.write;
    jest.spyOn(KvCompareAndSet.prototype, 'write').mockImplementation(function (this: KvCompareAndSet, ...args) {
      const { subject } = args[0];
      return meet(subject).then(() => write.apply(this, args)).finally(() => settled.set(subject, (settled.get(subject) ?? 0) + 1));
    });
    const kv = await new Kvm(cluster.conns[0]).open(LEASE_BUCKET);
    // Rounds: whether two writes overlap at the leader varies (without the msgID, each round stored both takes of
    // tens of leases).
    for (let round = 0; round < ROUNDS; round++) {
      const keys = Array.from({ length: KEYS }, (_, i) => `lapsed-${round}-${i}`);
      // A holder that died: its lease lapsed, so both instances read it and write over its revision.
      await Promise.all(keys.map((key) => kv.put(key, JSON.stringify({ holder: 'gone', until: 0 }))));
      const consumers = new Map<string, string[]>();
      for (const key of keys) {
        for (const node of [1, 2]) {
          // 60 s leases: neither retries nor renews within the test.
          void new ConsumerLease(cluster.conns[node], key, 60_000).hold(async () => {
            consumers.set(key, [...(consumers.get(key) ?? []), `n${node}`]);
            return async () => undefined;
          }, () => closing);
        }
      }
      await waitUntil(() => keys.every((key) => (settled.get(`$KV.${LEASE_BUCKET}.${key}`) ?? 0) >= 2), { timeoutMs: 90_000, description: 'both instances\' first take of each lease' });
      await waitUntil(() => keys.every((key) => consumers.has(key)), { timeoutMs: 10_000 });
      expect(keys.filter((key) => consumers.get(key)!.length !== 1)).toEqual([]);
    }
  });
});
