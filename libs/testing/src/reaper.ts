import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

/**
 * Last-resort cleanup for everything the harness spawns or creates.
 *
 * Tests are expected to call `stop()` themselves; this exists because a failing
 * `beforeAll`, a timed-out test or a jest worker being torn down would otherwise
 * leave nats-server processes (holding ports and disk) behind on a 2-core machine.
 */
const children = new Set<ChildProcess>();
const dirs = new Set<string>();
let installed = false;

/** Track a child process so it is SIGKILLed if this process exits first. */
export function trackChild(child: ChildProcess): void {
  install();
  children.add(child);
  child.once('exit', () => children.delete(child));
}

/** Track a directory so it is removed if this process exits before its owner removes it. */
export function trackDir(dir: string): void {
  install();
  dirs.add(dir);
}

/** Forget a directory the owner has already removed. */
export function untrackDir(dir: string): void {
  dirs.delete(dir);
}

function reapSync(): void {
  for (const child of children) {
    // exitCode/signalCode are null while the process is still running.
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  children.clear();
  for (const dir of dirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // best effort: a temp dir left behind is harmless compared to a crash here
    }
  }
  dirs.clear();
}

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function install(): void {
  if (installed) return;
  installed = true;
  // 'exit' runs on normal exit and process.exit(), which is how jest workers end.
  process.on('exit', reapSync);
  // A signal's default action skips 'exit' handlers (jest force-exits workers with
  // SIGTERM), so clean up and then re-raise the signal to keep its default effect,
  // unless somebody else also listens and thus owns the decision to exit.
  for (const signal of SIGNALS) {
    const onSignal = (): void => {
      reapSync();
      if (process.listenerCount(signal) === 1) {
        process.removeListener(signal, onSignal);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, onSignal);
  }
}
