import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants as fsConstants, statSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { delimiter, join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { freePort, sleep, tempDir, type TempDir } from './helpers';
import { trackChild } from './reaper';

/** Options for {@link startNatsServer}. */
export interface NatsServerOptions {
  /** Enable JetStream with a private store directory (default true). */
  jetstream?: boolean;
  /** How long to wait for the server to accept clients (default 10 000 ms). */
  readyTimeoutMs?: number;
}

/** A nats-server child process owned by the current test file. */
export interface NatsServerHandle {
  /** `nats://127.0.0.1:PORT` */
  readonly url: string;
  readonly port: number;
  /** JetStream store directory; survives {@link NatsServerHandle.restart}, removed by stop(). */
  readonly storeDir: string;
  /** Terminates the server (SIGTERM, then SIGKILL after 5 s) and removes the store. */
  stop(): Promise<void>;
  /** Sends a signal without waiting or cleaning up, to simulate a crash (default SIGKILL). */
  kill(signal?: NodeJS.Signals): void;
  /** Stops the process if still running and starts it again on the same port and store. */
  restart(): Promise<void>;
}

/** The error startNatsServer throws when no nats-server binary can be found. */
export const NATS_SERVER_MISSING_MESSAGE =
  'nats-server binary not found: install Debian\'s package with `apt-get install -y nats-server`, or set NATS_SERVER_BIN';

/**
 * Locates the nats-server binary: `NATS_SERVER_BIN`, then `PATH`, then the Debian
 * location (/usr/sbin is not on a non-root user's PATH).
 */
export function findNatsServerBinary(
  env: NodeJS.ProcessEnv = process.env,
  fallbacks: string[] = ['/usr/sbin/nats-server'],
): string {
  const explicit = env.NATS_SERVER_BIN;
  if (explicit) {
    // A wrong explicit setting is a configuration error; silently using another binary would hide it.
    if (isExecutable(explicit)) return explicit;
    throw new Error(`NATS_SERVER_BIN=${explicit} is not an executable file. ${NATS_SERVER_MISSING_MESSAGE}`);
  }
  const fromPath = (env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, 'nats-server'));
  const found = [...fromPath, ...fallbacks].find(isExecutable);
  if (!found) throw new Error(NATS_SERVER_MISSING_MESSAGE);
  return found;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, fsConstants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

let setprivChecked: string | null | undefined;
/**
 * util-linux `setpriv --pdeathsig KILL` makes the kernel kill nats-server when the
 * spawning process dies, even by SIGKILL, when no JS cleanup hook can run.
 */
function findSetpriv(): string | null {
  if (setprivChecked === undefined) {
    setprivChecked = ['/usr/bin/setpriv', '/bin/setpriv'].find(isExecutable) ?? null;
  }
  return setprivChecked;
}

const STDERR_LIMIT = 16 * 1024;

/**
 * Starts a private nats-server on a free loopback port (JetStream on by default)
 * and resolves once a client can connect (and JetStream answers, when enabled).
 */
export async function startNatsServer(opts: NatsServerOptions = {}): Promise<NatsServerHandle> {
  const bin = findNatsServerBinary();
  const jetstream = opts.jetstream ?? true;
  const readyTimeoutMs = opts.readyTimeoutMs ?? 10_000;
  const store = await tempDir('runledger-nats-');
  // Another process may grab the probed port before nats-server binds it; retry with a new one.
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const server = new NatsServer(bin, port, store, jetstream, readyTimeoutMs);
    try {
      await server.start();
      return server;
    } catch (err) {
      lastError = err;
      await server.terminate();
      if (!server.addressInUse()) break;
    }
  }
  await store.remove();
  throw lastError;
}

class NatsServer implements NatsServerHandle {
  readonly url: string;
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private stderr = '';
  private stopped = false;

  constructor(
    private readonly bin: string,
    readonly port: number,
    private readonly store: TempDir,
    private readonly jetstream: boolean,
    private readonly readyTimeoutMs: number,
  ) {
    this.url = `nats://127.0.0.1:${port}`;
  }

  get storeDir(): string {
    return this.store.path;
  }

  async start(): Promise<void> {
    // Artifacts of up to 8 MiB travel base64-encoded: the server's 1 MB default payload limit is too small.
    const config = join(this.store.path, 'nats-server.conf');
    writeFileSync(config, 'max_payload: 16MB\n');
    const args = ['-c', config, '-a', '127.0.0.1', '-p', String(this.port)];
    if (this.jetstream) args.push('-js', '-sd', this.store.path);
    const setpriv = findSetpriv();
    const [cmd, argv] = setpriv ? [setpriv, ['--pdeathsig', 'KILL', '--', this.bin, ...args]] : [this.bin, args];
    this.stderr = '';
    const child = spawn(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
    trackChild(child);
    // A server a test forgot to stop must not keep jest's event loop alive ("Jest did not
    // exit"); the reaper kills it when the process exits.
    child.unref();
    (child.stderr as Socket | null)?.unref();
    this.child = child;
    // Keep only the tail: it holds the reason when startup fails.
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_LIMIT);
    });
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    child.once('error', (err) => {
      this.stderr += `\nspawn error: ${err.message}`;
    });
    await this.waitReady(child);
  }

  addressInUse(): boolean {
    return /address already in use/i.test(this.stderr);
  }

  private async waitReady(child: ChildProcess): Promise<void> {
    const deadline = Date.now() + this.readyTimeoutMs;
    let lastError = 'no attempt made';
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw this.failure(`exited early (code ${child.exitCode}, signal ${child.signalCode})`);
      }
      try {
        const nc = await connect({ servers: this.url, reconnect: false, timeout: 1000 });
        try {
          // The client port may open before JetStream finished recovering its store.
          if (this.jetstream) await (await jetstreamManager(nc)).getAccountInfo();
          return;
        } finally {
          await nc.close();
        }
      } catch (err) {
        lastError = err instanceof Error ? err.message : String(err);
      }
      await sleep(50);
    }
    throw this.failure(`not ready within ${this.readyTimeoutMs} ms (last error: ${lastError})`);
  }

  private failure(reason: string): Error {
    const tail = this.stderr.trim() || '(no output)';
    return new Error(`nats-server on ${this.url} ${reason}\n--- nats-server stderr ---\n${tail}`);
  }

  kill(signal: NodeJS.Signals = 'SIGKILL'): void {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) child.kill(signal);
  }

  /** Ends the process, escalating to SIGKILL if it ignores SIGTERM. */
  async terminate(): Promise<void> {
    const child = this.child;
    if (!child) return;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await this.exited;
      clearTimeout(timer);
    }
    this.child = null;
  }

  async restart(): Promise<void> {
    if (this.stopped) throw new Error(`nats-server on ${this.url} was stopped; start a new one instead`);
    await this.terminate();
    await this.start();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.terminate();
    await this.store.remove();
  }
}
