import { connect, NatsConnection } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
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
});
