import type { ChildProcess } from 'node:child_process';
import { startNatsServer, type NatsServerHandle, type TestIdentity } from '@runledger/testing';

// The same launcher `npm start` and the test stacks use: the built ledger, as its own process.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const launcher = require('../scripts/lib/stack.js') as {
  startService(name: string, opts: { natsUrl: string; creds?: Readonly<Record<string, TestIdentity>>; env?: Record<string, string>; onLine?: (svc: string, line: string) => void }): { child: ChildProcess; ready: Promise<unknown> };
};

jest.setTimeout(120_000);

describe('Issue 22 the audit ledger on a secured NATS needs its consumer identity', () => {
  let nats: NatsServerHandle;
  beforeAll(async () => {
    nats = await startNatsServer();
  });
  afterAll(async () => {
    await nats?.stop();
  });

  it('Issue 22: the ledger started with its own credentials but no NATS_CONSUMER_* refuses to start (exit 3) with a message naming the missing settings, instead of running and lagging', async () => {
    const lines: string[] = [];
    // Its own identity as npm start gives it; the consumer identity's settings left empty (unset).
    const svc = launcher.startService('audit-ledger', {
      natsUrl: nats.url, creds: nats.creds,
      env: { NATS_CONSUMER_CREDS: '', NATS_CONSUMER_USER: '', NATS_CONSUMER_PASSWORD: '', NATS_CONSUMER_INBOX_PREFIX: '' },
      onLine: (_svc, line) => lines.push(line),
    });
    const exit = new Promise<number | null>((resolve) => svc.child.once('exit', (code) => resolve(code)));
    await expect(svc.ready).rejects.toThrow(/exited before it was ready/);
    expect(await exit).toBe(3);
    const failure = lines.map((l) => { try { return JSON.parse(l) as { msg?: string; error?: string }; } catch { return {}; } }).find((l) => l.msg === 'failed to start');
    expect(failure?.error).toMatch(/audit-ledger connects to a secured NATS .*NATS_CONSUMER_CREDS .*NATS_CONSUMER_INBOX_PREFIX/);
  });
});
