import { connect, NatsConnection } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
import { jetstreamManager } from '@nats-io/jetstream';
import { ensureKvBucket, KV_HISTORY, KV_WRITER_HEADER } from '@runledger/document-store';
import { startNatsServer, NatsServerHandle, TEST_ADMIN, waitUntil } from '@runledger/testing';
import { ConsumerLease, LEASE_BUCKET } from './consumer-lease';

jest.setTimeout(120_000);

describe('Issue 10 beyond one machine: an exclusive consumer is held by one instance at a time', () => {
  let nats: NatsServerHandle;
  const conns: NatsConnection[] = [];
  beforeAll(async () => {
    nats = await startNatsServer();
    const nc = await connect(nats.connectOptions(TEST_ADMIN));
    conns.push(nc);
    await new Kvm(nc).create(LEASE_BUCKET, { history: 1 });
  });
  afterAll(async () => {
    for (const nc of conns) await nc.close().catch(() => undefined);
    await nats?.stop();
  });

  it('Issue 10 beyond one machine: two instances compete, one consumes; when it dies (its lease lapses) the other takes over', async () => {
    const consuming = new Set<string>();
    let overlap = false;
    let closing = false;
    const instance = async (name: string) => {
      const nc = await connect(nats.connectOptions(TEST_ADMIN));
      conns.push(nc);
      void new ConsumerLease(nc, 'ledger', 1_500).hold(async () => {
        if (consuming.size) overlap = true;
        consuming.add(name);
        return async () => void consuming.delete(name);
      }, () => closing || nc.isClosed());
      return nc;
    };
    const a = await instance('a');
    const b = await instance('b');
    await waitUntil(() => consuming.size === 1, { timeoutMs: 10_000 });
    const first = [...consuming][0];
    // The holder dies without a word (its connection gone): no renewals, the lease lapses, the other takes over.
    await (first === 'a' ? a : b).close();
    consuming.delete(first);
    await waitUntil(() => consuming.size === 1 && !consuming.has(first), { timeoutMs: 20_000 });
    closing = true;
    expect(overlap).toBe(false);
  });

  it('Issue 10 beyond one machine: a holder that stops gracefully releases the lease, and the other takes over without waiting it out', async () => {
    const nc = await connect(nats.connectOptions(TEST_ADMIN));
    conns.push(nc);
    const consuming = new Set<string>();
    const stopped = new Set<string>();
    const leases = { a: new ConsumerLease(nc, 'graceful', 60_000), b: new ConsumerLease(nc, 'graceful', 60_000) };
    for (const [name, lease] of Object.entries(leases)) {
      void lease.hold(async () => {
        consuming.add(name);
        return async () => void consuming.delete(name);
      }, () => stopped.has(name));
    }
    await waitUntil(() => consuming.size === 1, { timeoutMs: 10_000 });
    const first = [...consuming][0] as 'a' | 'b';
    stopped.add(first);
    await leases[first].release();
    // A 60 s lease: only the release lets the other in within the wait below.
    await waitUntil(() => consuming.has(first === 'a' ? 'b' : 'a'), { timeoutMs: 40_000 });
    stopped.add('a').add('b');
  });

  it('Issue 10 beyond one machine: a live holder whose lease was taken over stops consuming at its next renewal', async () => {
    const nc = await connect(nats.connectOptions(TEST_ADMIN));
    conns.push(nc);
    let consuming = false;
    let closing = false;
    void new ConsumerLease(nc, 'taken', 900).hold(async () => {
      consuming = true;
      return async () => void (consuming = false);
    }, () => closing);
    await waitUntil(() => consuming, { timeoutMs: 10_000 });
    // Another instance took the lease (its compare-and-set won while this holder was paused): the holder must notice.
    await (await new Kvm(nc).open(LEASE_BUCKET)).put('taken', JSON.stringify({ holder: 'other-instance', until: Date.now() + 3_600_000 }));
    await waitUntil(() => !consuming, { timeoutMs: 20_000 });
    closing = true;
    expect(consuming).toBe(false);
  });

  it('a value the bus stored on the lease key (an answer sent to a request naming it as reply subject) neither hands the lease to a second instance nor stops its holder renewing', async () => {
    const nc = await connect(nats.connectOptions(TEST_ADMIN));
    conns.push(nc);
    const jsm = await jetstreamManager(nc);
    // The bucket as the bootstrap brings it to this release's settings.
    await ensureKvBucket(jsm, LEASE_BUCKET, { history: KV_HISTORY });
    const subject = `$KV.${LEASE_BUCKET}.answered`;
    const consuming = new Set<string>();
    let overlap = false;
    let closing = false;
    const lease = (name: string) => void new ConsumerLease(nc, 'answered', 1_500).hold(async () => {
      if (consuming.size) overlap = true;
      consuming.add(name);
      return async () => void consuming.delete(name);
    }, () => closing);
    lease('a');
    await waitUntil(() => consuming.has('a'), { timeoutMs: 10_000 });
    const insider = await connect(nats.connectOptions('decision'));
    conns.push(insider);
    insider.publish('$JS.API.INFO', '', { reply: subject });
    const answer = await waitUntil(async () => {
      const last = await jsm.streams.getMessage(`KV_${LEASE_BUCKET}`, { last_by_subj: subject });
      return last && !last.header?.has(KV_WRITER_HEADER) ? last.seq : null;
    });
    lease('b');
    // The holder renews past the answer, twice (b tried to take it meanwhile, every 500 ms, and was refused each time).
    const renewals = async () => {
      let n = 0;
      for (let seq = answer + 1; ; seq++) {
        const m = await jsm.streams.getMessage(`KV_${LEASE_BUCKET}`, { next_by_subj: subject, seq } as unknown as { seq: number });
        if (!m) return n;
        if (m.header?.has(KV_WRITER_HEADER)) n++;
        seq = m.seq;
      }
    };
    await waitUntil(async () => (await renewals()) >= 2, { timeoutMs: 20_000 });
    closing = true;
    expect(overlap).toBe(false);
    expect([...consuming]).toEqual(['a']);
  });
});
