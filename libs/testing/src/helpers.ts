import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { trackDir, untrackDir } from './reaper';

/** Options for {@link waitUntil}. */
export interface WaitUntilOptions {
  /** Give up after this many milliseconds (default 5000). */
  timeoutMs?: number;
  /** Pause between attempts (default 25). */
  intervalMs?: number;
  /** Used in the timeout error so a failing test says what it waited for. */
  description?: string;
}

/**
 * Polls `pred` until it returns a truthy value and resolves with that value.
 * A predicate that throws counts as "not yet"; the last error is reported on timeout,
 * which is usually the most useful clue about why the condition never held.
 */
export async function waitUntil<T>(
  pred: () => T | Promise<T>,
  opts: WaitUntilOptions = {},
): Promise<NonNullable<T>> {
  const timeoutMs = opts.timeoutMs ?? 5000;
  const intervalMs = opts.intervalMs ?? 25;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await pred();
      if (value) return value as NonNullable<T>;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) break;
    await sleep(Math.min(intervalMs, Math.max(0, deadline - Date.now())));
  }
  const what = opts.description ? ` for ${opts.description}` : '';
  const cause = lastError instanceof Error ? `; last error: ${lastError.message}` : '';
  throw new Error(`waitUntil timed out after ${timeoutMs} ms${what}${cause}`, { cause: lastError });
}

/**
 * Runs `read` as a well-behaved client does: an error the system marks retryable (`retryable: true`, as
 * DEPENDENCY.DOWN is while a restarted nats-server recovers its streams) is retried until `timeoutMs`;
 * any other error fails at once.
 */
export async function retryingTransient<T>(read: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await read();
    } catch (err) {
      if ((err as { retryable?: boolean }).retryable !== true || Date.now() >= deadline) throw err;
      await sleep(200);
    }
  }
}

/**
 * A meeting point of two callers per key: the first waits for the second, then both go on in the same tick (two
 * racers leave together, whatever delayed one of them); later callers of a key go on at once.
 */
export function meetingInPairs(): (key: string) => Promise<void> {
  const waiting = new Map<string, Array<() => void>>();
  return (key) => {
    const met = waiting.get(key) ?? [];
    waiting.set(key, met);
    if (met.length >= 2) return Promise.resolve();
    return new Promise((go) => {
      if (met.push(go) === 2) met.forEach((release) => release());
    });
  };
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// Ports handed out recently by this process. The OS may hand the same ephemeral port
// to two back-to-back probes once the first probe socket closes; remembering them
// keeps two servers started in parallel from racing for one port.
const recentlyIssued = new Set<number>();

/** Returns a TCP port on 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await probePort();
    if (!recentlyIssued.has(port)) {
      recentlyIssued.add(port);
      if (recentlyIssued.size > 256) recentlyIssued.delete(recentlyIssued.values().next().value as number);
      return port;
    }
  }
  throw new Error('freePort: could not find an unused loopback port');
}

function probePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => (port ? resolve(port) : reject(new Error('freePort: no port assigned'))));
    });
  });
}

/** A temporary directory and a way to remove it. */
export interface TempDir {
  readonly path: string;
  /** Removes the directory and everything in it; safe to call twice. */
  remove(): Promise<void>;
}

/**
 * Creates a fresh directory under the OS temp dir. It is also removed when the
 * process exits, so a test that forgets `remove()` does not fill the disk.
 */
export async function tempDir(prefix = 'runledger-test-'): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  trackDir(path);
  return {
    path,
    async remove() {
      await rm(path, { recursive: true, force: true });
      untrackDir(path);
    },
  };
}
