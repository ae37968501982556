import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, nkeyAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { FixedClock } from '@runledger/kernel';
import { tempDir, waitUntil, type TempDir } from '@runledger/testing';
import { aggregateRef, ConcurrencyError, ensureLogStream, EventLog } from './index';

// The launcher's own way of starting a JetStream cluster node (the fault suite's --cluster uses it too).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const stack = require('../../../scripts/lib/stack.js') as {
  freePort(): Promise<number>;
  startNats(opts: Record<string, unknown>): Promise<{ child: import('node:child_process').ChildProcess; creds: Record<string, { file: string; inboxPrefix: string }> }>;
  stopProcess(child: unknown, signal?: string): Promise<void>;
};

jest.setTimeout(180_000);

/**
 * The log's one-writer-per-version guarantee on a three-node JetStream cluster. nats-server before 2.11 checks a
 * clustered append's expected subject sequence against what is stored before it proposes the message, so two appends
 * on the same version in flight together would both be stored (the deployed suite once saw a run with two terminal
 * events under a NATS node kill). The log's msgID per version makes the second one a duplicate when stored.
 */
describe('EventLog on a three-node JetStream cluster', () => {
  let store: TempDir;
  const nodes: Array<{ child: unknown }> = [];
  const conns: NatsConnection[] = [];

  beforeAll(async () => {
    store = await tempDir('runledger-cluster-');
    const ports = await Promise.all(Array.from({ length: 6 }, () => stack.freePort()));
    const started = await Promise.all([0, 1, 2].map((i) => stack.startNats({
      port: ports[i],
      storeDir: join(store.path, `n${i + 1}`),
      credsDir: join(store.path, 'credentials'),
      fullRights: ['test-admin'],
      readyTimeoutMs: 60_000,
      cluster: { name: 'runledger', serverName: `n${i + 1}`, port: ports[3 + i], routes: ports.slice(3).filter((_, j) => j !== i) },
    })));
    nodes.push(...started);
    const admin = started[0].creds['test-admin'];
    const seed = new TextEncoder().encode(readFileSync(admin.file, 'utf8').trim());
    // One writer connected to each node: their appends reach the stream leader through different routes.
    for (let i = 0; i < 3; i++) conns.push(await connect({ servers: `nats://127.0.0.1:${ports[i]}`, authenticator: nkeyAuthenticator(seed), inboxPrefix: admin.inboxPrefix }));
    const jsm = await jetstreamManager(conns[0]);
    // A cluster still electing its JetStream meta leader refuses stream creation for a while.
    await waitUntil(() => ensureLogStream(jsm, { num_replicas: 3 }).then(() => true, () => false), { timeoutMs: 120_000, intervalMs: 500 });
  });
  afterAll(async () => {
    await Promise.all(conns.map((c) => c.close()));
    await Promise.all(nodes.map((n) => stack.stopProcess(n.child)));
    await store?.remove();
  });

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
});
