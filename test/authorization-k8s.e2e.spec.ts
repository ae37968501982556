import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { LOG_STREAM, logStreamConfig } from '@runledger/event-log';
import { encodeJson } from '@runledger/messaging';
import { findNatsServerBinary, freePort, tempDir, waitUntil, type TempDir } from '@runledger/testing';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const k8s = require('../scripts/render-k8s-nats.js') as { k8sBlock(): string; passwordKey(id: string): string; userName(id: string): string; natsPassword(): string };

jest.setTimeout(180_000);

/**
 * Issue 9 under the k8s NATS configuration: the users block of k8s/base/nats/nats.conf (rendered from the same
 * table; contracts:check keeps the file equal to it) on a real nats-server, users with passwords from the
 * environment as the StatefulSet passes them. The bypasses are refused here as they are in the default start.
 */
describe('Issue 9 authorization under the k8s NATS users (user/password, same permissions table)', () => {
  const ids = ['caller', 'operator', 'admin', 'decision', 'tool-gateway', 'db-write', 'audit-ledger'];
  const passwords = Object.fromEntries(ids.map((id) => [id, k8s.natsPassword()]));
  let dir: TempDir;
  let server: ChildProcess;
  let url: string;
  const conns: NatsConnection[] = [];
  const as = async (id: string | null): Promise<NatsConnection> => {
    const nc = await connect({ servers: url, timeout: 10_000, ...(id ? { user: k8s.userName(id), pass: passwords[id], inboxPrefix: `_INBOX_${id}` } : {}) });
    conns.push(nc);
    return nc;
  };
  const REFUSED = /Permissions Violation/;

  beforeAll(async () => {
    dir = await tempDir('runledger-k8s-nats-');
    const port = await freePort();
    url = `nats://127.0.0.1:${port}`;
    const conf = join(dir.path, 'nats.conf');
    writeFileSync(conf, `max_payload: 16MB\n${k8s.k8sBlock()}\n`);
    // Every identity of the block needs its variable; the ones this test does not use get throwaway values.
    const env: Record<string, string> = { ...process.env as Record<string, string>, SYS_PASSWORD: k8s.natsPassword() };
    for (const line of k8s.k8sBlock().match(/\$[A-Z_]+_PASSWORD/g) ?? []) env[line.slice(1)] ??= k8s.natsPassword();
    for (const id of ids) env[k8s.passwordKey(id)] = passwords[id];
    server = spawn(findNatsServerBinary(), ['-c', conf, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir.path], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    server.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
    await waitUntil(() => as('admin').then((nc) => nc.close().then(() => true)), { timeoutMs: 60_000, intervalMs: 250, description: 'the k8s-configured nats-server' })
      .catch((err: Error) => { throw new Error(`${err.message}\n${stderr}`); });
    const admin = await as('admin');
    await (await jetstreamManager(admin)).streams.add(logStreamConfig());
  }, 120_000);
  afterAll(async () => {
    for (const nc of conns) await nc.close().catch(() => undefined);
    server?.kill('SIGKILL');
    await dir?.remove();
  });

  it('Issue 9 bypass (k8s): an anonymous client connects → refused', async () => {
    await expect(as(null)).rejects.toThrow(/Authorization Violation/);
  });
  it('Issue 9 bypass (k8s): caller subscribes to _INBOX.> and rl.log.> → refused', async () => {
    const caller = await as('caller');
    expect(String(await caller.subscribe('_INBOX.>').closed)).toMatch(REFUSED);
    expect(String(await caller.subscribe('rl.log.>').closed)).toMatch(REFUSED);
  });
  it('Issue 9 bypass (k8s): caller calls rl.db.write directly → refused', async () => {
    await expect((await as('caller')).request('rl.db.write', encodeJson({}), { timeout: 10_000 })).rejects.toThrow(REFUSED);
  });
  it('Issue 9 bypass (k8s): caller forges a completed run on rl.log.run.* → refused', async () => {
    await expect(jetstream(await as('caller')).publish(`rl.log.run.${randomUUID()}`, encodeJson({ type: 'RunCompleted' }), { timeout: 10_000 })).rejects.toThrow(REFUSED);
  });
  it('Issue 9 bypass (k8s): a service (tool-gateway) appends a forged audit-chain entry → refused', async () => {
    await expect(jetstream(await as('tool-gateway')).publish('rl.log.audit.chain', encodeJson({ type: 'AuditChainEntry' }), { timeout: 10_000 })).rejects.toThrow(REFUSED);
  });
  it('Issue 9 bypass (k8s): a service (decision) creates a stream on agents.task-assistant.process → refused', async () => {
    await expect((await as('decision')).request('$JS.API.STREAM.CREATE.CAPTURE', encodeJson({ name: 'CAPTURE', subjects: ['agents.task-assistant.process'] }), { timeout: 10_000 })).rejects.toThrow(REFUSED);
  });
  it('Issue 9 bypass (k8s): a service (db-write) changes the log\'s max_age → refused', async () => {
    await expect((await as('db-write')).request(`$JS.API.STREAM.UPDATE.${LOG_STREAM}`, encodeJson({ ...logStreamConfig(), max_age: 1_000_000_000 }), { timeout: 10_000 })).rejects.toThrow(REFUSED);
  });
  it('Issue 9 bypass (k8s): operator deletes the audit-ledger consumer, pulls decision\'s inbox → refused', async () => {
    const operator = await as('operator');
    await expect(operator.request(`$JS.API.CONSUMER.DELETE.${LOG_STREAM}.audit-ledger`, encodeJson({}), { timeout: 10_000 })).rejects.toThrow(REFUSED);
    await expect(operator.request(`$JS.API.CONSUMER.MSG.NEXT.${LOG_STREAM}.decision-inbox`, encodeJson({ batch: 1 }), { timeout: 10_000 })).rejects.toThrow(REFUSED);
  });
  it('Issue 9 positive path (k8s): audit-ledger appends to the audit chain; decision appends a run event', async () => {
    const chain = await jetstream(await as('audit-ledger')).publish('rl.log.audit.chain', encodeJson({ type: 'AuditChainEntry' }), { timeout: 10_000 });
    expect(chain.seq).toBeGreaterThan(0);
    const run = await jetstream(await as('decision')).publish(`rl.log.run.decision.${randomUUID()}`, encodeJson({ type: 'RunStarted' }), { timeout: 10_000 });
    expect(run.seq).toBeGreaterThan(chain.seq);
  });
});
