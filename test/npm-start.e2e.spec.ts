/**
 * `npm start` as a user runs it (README "Run it"): the real npm, its own nats-server and the seven services, with its
 * data folder in a temporary RL_DATA_DIR and its NATS on a free port (RL_NATS_PORT), so a developer's `.data` and
 * port 4322 are never touched.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { join, resolve } from 'node:path';
import { freePort, tempDir, waitUntil, type TempDir } from '@runledger/testing';

jest.setTimeout(180_000);

const ROOT = resolve(__dirname, '..');

/** Whether any process of the group `pgid` is still running (npm, start.js, nats-server, a service). */
const groupAlive = (pgid: number) => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
};

/** `npm start` in its own process group (so the test can signal npm alone, as a supervisor that knows only its pid). */
function npmStart(dataDir: string, natsPort: number): { npm: ChildProcess; output: () => string } {
  let output = '';
  const npm = spawn('npm', ['start'], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, RL_NATS_PORT: String(natsPort), RL_DATA_DIR: dataDir, NATS_URL: '', LOG_LEVEL: 'warn' } });
  npm.stdout!.on('data', (c) => (output += c));
  npm.stderr!.on('data', (c) => (output += c));
  return { npm, output: () => output };
}

/** Whatever a failed check left running. */
function killGroup(npm: ChildProcess | undefined) {
  try {
    if (npm?.pid) process.kill(-npm.pid, 'SIGKILL');
  } catch {
    // the group is gone: everything stopped as it should
  }
}

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
    const started = npmStart(dir.path, natsPort);
    npm = started.npm;
    await waitUntil(() => /Runledger ready on /.test(started.output()) && /health \(http\)[^\n]*\n/.test(started.output()), { timeoutMs: 150_000 });
    output = started.output();
    healthPorts = [...(/health \(http\)\s*:([^\n]*)/.exec(output)![1].matchAll(/:(\d+)/g))].map((m) => Number(m[1]));
  });

  afterAll(async () => {
    killGroup(npm);
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

  /**
   * A command as the banner prints it, run through a shell from another terminal: one that has none of npm start's
   * settings (RL_NATS_PORT, RL_DATA_DIR, NATS_*), as a user who started the stack elsewhere has. `until` ends it early.
   */
  async function asPrinted(command: string, opts: { stdin?: string; until?: RegExp } = {}): Promise<{ code: number | null; out: string }> {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(RL_NATS_PORT|RL_DATA_DIR|NATS_\w+)$/.test(k)));
    const child = spawn('sh', ['-c', command], { cwd: ROOT, detached: true, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    const seen = (c: Buffer) => {
      out += c;
      if (opts.until?.test(out)) process.kill(-child.pid!, 'SIGINT');
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.stdin!.end(opts.stdin ?? '');
    const [code] = (await once(child, 'exit')) as [number | null];
    return { code, out };
  }

  it('README "Run it": the commands the ready banner prints work as printed from another shell, on a port other than 4322 and another data folder', async () => {
    const printed = (label: string) => new RegExp(`${label}\\s*: (npm run [^\\n(]*?)\\s*(\\(|\\n)`).exec(output)?.[1] ?? '';
    const verify = printed('audit verify');
    expect(verify).toContain(`--server nats://127.0.0.1:${natsPort}`);
    expect(await asPrinted(verify)).toMatchObject({ code: 0, out: expect.stringContaining('audit chain OK') });
    const chat = await asPrinted(printed('terminal chat'), { stdin: 'show my tasks\n/quit\n' });
    expect({ code: chat.code, reply: /assistant> /.test(chat.out), out: chat.out }).toMatchObject({ code: 0, reply: true });
    // The console keeps serving: seen signed-in URL, it is stopped (the banner's port 4380 may be a developer's console: any free one).
    const web = await asPrinted(`${printed('web console')} --port 0`, { until: /open http:\/\/127\.0\.0\.1:\d+\/login\?token=/ });
    expect(web.out).toMatch(/runledger console: open http:\/\/127\.0\.0\.1:\d+\/login\?token=/);
  });

  it('README "Operator commands": a command given --server but no credentials says exactly what to pass (flags, environment variables, and where npm start writes them), exit 3', async () => {
    const r = await asPrinted(`node scripts/runledger.js runs list --server nats://127.0.0.1:${natsPort}`);
    expect(r.code).toBe(3);
    for (const named of ['--creds FILE', 'NATS_CREDS', '--nats-user', 'NATS_USER', '--context NAME', 'NATS_CONTEXT', '.data/credentials/operator.nk', 'RL_DATA_DIR']) expect({ named, out: r.out }).toEqual({ named, out: expect.stringContaining(named) });
    expect(r.out).not.toMatch(/refused these credentials/);
  });

  it('README "Run it": SIGTERM to npm stops the services and nats-server (npm does not pass it on; npm start notices its parent is gone)', async () => {
    expect(healthPorts).toHaveLength(7);
    expect(await listening(natsPort)).toBe(true);
    process.kill(npm!.pid!, 'SIGTERM');
    await waitUntil(async () => !(await listening(natsPort)), { timeoutMs: 60_000 });
    for (const port of healthPorts) await waitUntil(async () => !(await listening(port)), { timeoutMs: 60_000 });
    await waitUntil(() => !groupAlive(npm!.pid!), { timeoutMs: 60_000, description: 'every process npm start started to exit' });
  });

  it('README "Run it": SIGTERM to npm while nats-server starts stops what was started and starts nothing after it', async () => {
    const early = await tempDir('runledger-npm-start-early-');
    const started = npmStart(early.path, await freePort());
    try {
      await waitUntil(() => /starting nats-server on /.test(started.output()), { timeoutMs: 60_000 });
      process.kill(started.npm.pid!, 'SIGTERM');
      await waitUntil(() => !groupAlive(started.npm.pid!), { timeoutMs: 60_000, description: 'every process npm start started to exit' });
      expect(started.output()).not.toMatch(/Runledger ready on /);
    } finally {
      killGroup(started.npm);
      await early.remove();
    }
  });
});
