/**
 * `npm start` as a user runs it (README "Run it"): the real npm, its own nats-server and the seven services, with its
 * data folder in a temporary RL_DATA_DIR and its NATS on a free port (RL_NATS_PORT), so a developer's `.data` and
 * port 4322 are never touched.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { join, resolve } from 'node:path';
import { freePort, tempDir, waitUntil, type TempDir } from '@runledger/testing';

jest.setTimeout(180_000);

const ROOT = resolve(__dirname, '..');

/** Whether something accepts connections on 127.0.0.1:port. */
const listening = (port: number) => new Promise<boolean>((done) => {
  const socket = tcpConnect({ host: '127.0.0.1', port }, () => (socket.destroy(), done(true)));
  socket.once('error', () => done(false));
});

describe('README "Run it": npm start', () => {
  let dir: TempDir;
  let npm: ChildProcess | undefined;
  let output = '';
  let natsPort: number;
  let healthPorts: number[] = [];

  beforeAll(async () => {
    dir = await tempDir('runledger-npm-start-');
    natsPort = await freePort();
    // Its own process group, so the test signals npm alone (as a supervisor that knows only npm's pid does) and can
    // still clear up every process of the group if a check fails.
    npm = spawn('npm', ['start'], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, RL_NATS_PORT: String(natsPort), RL_DATA_DIR: dir.path, NATS_URL: '', LOG_LEVEL: 'warn' } });
    npm.stdout!.on('data', (c) => (output += c));
    npm.stderr!.on('data', (c) => (output += c));
    await waitUntil(() => /Runledger ready on /.test(output) && /health \(http\)[^\n]*\n/.test(output), { timeoutMs: 150_000 });
    healthPorts = [...(/health \(http\)\s*:([^\n]*)/.exec(output)![1].matchAll(/:(\d+)/g))].map((m) => Number(m[1]));
  });

  afterAll(async () => {
    try {
      if (npm?.pid) process.kill(-npm.pid, 'SIGKILL'); // whatever a failed check left running
    } catch {
      // the group is gone: everything stopped as it should
    }
    await dir?.remove();
  });

  it('README "Run it": the ready line names the operator\'s subjects from the permissions table, and the data folder is RL_DATA_DIR', () => {
    const operators = /operators\s*:([^\n]*)\(as the operator\)/.exec(output)?.[1] ?? '';
    for (const subject of ['rl.runs.get|list|cancel|fork|resolve', 'rl.deadletters.list|retry', 'rl.audit.query|verify|coverage|head', 'agents.campaign.answer', 'rl.health.<service>']) {
      expect(operators).toContain(subject);
    }
    expect(existsSync(join(dir.path, 'credentials', 'operator.nk'))).toBe(true);
    expect(existsSync(join(dir.path, 'nats'))).toBe(true);
  });

  it('README "Run it": SIGTERM to npm stops the services and nats-server (npm does not pass it on; npm start notices its parent is gone)', async () => {
    expect(healthPorts).toHaveLength(7);
    expect(await listening(natsPort)).toBe(true);
    process.kill(npm!.pid!, 'SIGTERM');
    await waitUntil(async () => !(await listening(natsPort)), { timeoutMs: 60_000 });
    for (const port of healthPorts) await waitUntil(async () => !(await listening(port)), { timeoutMs: 60_000 });
  });
});
