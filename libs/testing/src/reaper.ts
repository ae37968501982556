import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { runInThisContext } from 'node:vm';

/**
 * Last-resort cleanup for everything the harness spawns or creates.
 *
 * Tests are expected to call `stop()` themselves; this exists because a failing
 * `beforeAll`, a timed-out test or a jest worker being torn down would otherwise
 * leave nats-server processes (holding ports and disk) behind on a 2-core machine.
 * Cleanup happens when the (worker) process exits, not at the end of each test file.
 */
interface Registry {
  children: Set<ChildProcess>;
  dirs: Set<string>;
}

// One registry per real process, shared by every test file a jest worker runs, so
// handlers are installed once instead of once per file (which would also trip
// Node's MaxListeners warning after ten files).
const REGISTRY_KEY = '__runledgerTestingReaper';

/**
 * Jest runs each test file in a vm context whose `process` is a copy: listeners added
 * to it never fire. Evaluating `process` in the main context yields the real one.
 */
function realProcess(): NodeJS.Process {
  try {
    const proc = runInThisContext('process') as NodeJS.Process | undefined;
    if (proc && typeof proc.on === 'function') return proc;
  } catch {
    // not available: fall back to whatever `process` this context has
  }
  return process;
}

function registry(): Registry {
  const proc = realProcess() as NodeJS.Process & { [REGISTRY_KEY]?: Registry };
  let reg = proc[REGISTRY_KEY];
  if (!reg) {
    reg = { children: new Set(), dirs: new Set() };
    proc[REGISTRY_KEY] = reg;
    install(proc, reg);
  }
  return reg;
}

/** Track a child process so it is SIGKILLed if this process exits first. */
export function trackChild(child: ChildProcess): void {
  const { children } = registry();
  children.add(child);
  child.once('exit', () => children.delete(child));
}

/** Track a directory so it is removed if this process exits before its owner removes it. */
export function trackDir(dir: string): void {
  registry().dirs.add(dir);
}

/** Forget a directory the owner has already removed. */
export function untrackDir(dir: string): void {
  registry().dirs.delete(dir);
}

function reapSync(reg: Registry): void {
  for (const child of reg.children) {
    // exitCode/signalCode are null while the process is still running.
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  reg.children.clear();
  for (const dir of reg.dirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // best effort: a temp dir left behind is harmless compared to a crash here
    }
  }
  reg.dirs.clear();
}

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function install(proc: NodeJS.Process, reg: Registry): void {
  // 'exit' runs on normal exit and process.exit(), which is how jest workers end.
  proc.on('exit', () => reapSync(reg));
  // A signal's default action skips 'exit' handlers (jest force-exits workers with
  // SIGTERM), so clean up and then re-raise the signal to keep its default effect,
  // unless somebody else also listens and thus owns the decision to exit.
  for (const signal of SIGNALS) {
    const onSignal = (): void => {
      reapSync(reg);
      if (proc.listenerCount(signal) === 1) {
        proc.removeListener(signal, onSignal);
        proc.kill(proc.pid, signal);
      }
    };
    proc.on(signal, onSignal);
  }
}
