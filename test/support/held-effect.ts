/**
 * Holding a choke point's effect at db-write, its server, until the test lets it go: for crashing the choke point
 * mid-effect with nothing left to timing (test/crash-choke-points.e2e.spec.ts).
 */
import type { Msg } from '@nats-io/transport-node';
import type { TestStack } from './stack';

// The permissions table says which requests db-write serves and who may send them (the harness reads it as npm start does).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const permissions = require('../../scripts/lib/permissions.js') as {
  loadTable(): { requests: Record<string, { serve: string; call?: string[] }> };
  toWildcard(address: string): string;
};

const DB_WRITE = 'db-write';

export interface HeldEffect {
  /** Resolves once the effect's request is on the wire, unanswered: the choke point cannot get past it. */
  reached: Promise<void>;
  /** Lets db-write go on: it carries the held effect out; resolves once it answered (to the choke point's inbox). */
  release(): Promise<void>;
  /** The requests let through before the effect, by subject, in order. */
  passed: string[];
  /** Lets every held process go on and stops watching (idempotent; for a test that failed midway). */
  dispose(): void;
}

/**
 * Holds db-write (SIGSTOP) before `service` is asked anything, and lets its requests from `service` through one at a
 * time: the service is held the moment its request is seen, db-write goes on until it answered, is held again, and
 * the service goes on. The request on `effect.subject` holding `effect.marker` is not let through: db-write holds it,
 * unread, until release(). Nothing decides by timing where the service stands when `reached` resolves: it waits
 * for an answer nobody can give, having done everything before it. (A held service's own timer for the request it
 * waits on runs on: the steps before the effect are each let through as soon as they are seen.)
 */
export async function holdDbWriteEffect(stack: TestStack, service: string, effect: { subject: string; marker: string }): Promise<HeldEffect> {
  const table = permissions.loadTable();
  const subjects = Object.entries(table.requests)
    .filter(([, r]) => r.serve === DB_WRITE && (r.call ?? []).includes(service))
    .map(([address]) => permissions.toWildcard(address));
  if (!subjects.includes(effect.subject)) throw new Error(`${service} may not send ${effect.subject} to ${DB_WRITE} (deploy/nats/permissions.yaml)`);
  const inbox = `${stack.nats.creds[service].inboxPrefix}.`;
  // db-write's answers to the service, by the reply subject each request named (seen before its answer can be).
  const awaited = new Map<string, () => void>();
  const answeredTo = (reply: string) => new Promise<void>((resolve) => awaited.set(reply, resolve));
  let effectReply: string | undefined;
  let reachedResolve!: () => void;
  const reached = new Promise<void>((resolve) => (reachedResolve = resolve));
  let steps = Promise.resolve();
  const passed: string[] = [];
  let held = { [DB_WRITE]: false, [service]: false };
  let disposed = false;
  const set = (name: string, hold: boolean) => {
    if (held[name] === hold || (disposed && hold)) return;
    stack.signal(name, hold ? 'SIGSTOP' : 'SIGCONT');
    held = { ...held, [name]: hold };
  };

  const answers = stack.nc.subscribe(`${inbox}>`, {
    callback: (_err, m: Msg) => {
      const resolve = awaited.get(m.subject);
      awaited.delete(m.subject);
      resolve?.();
    },
  });
  const onRequest = (_err: unknown, m: Msg) => {
    if (!m.reply?.startsWith(inbox) || effectReply || disposed) return;
    if (m.subject === effect.subject && new TextDecoder().decode(m.data).includes(effect.marker)) {
      effectReply = m.reply;
      reachedResolve();
      return;
    }
    const answered = answeredTo(m.reply);
    passed.push(m.subject);
    // At once, before anything asynchronous: the service waits on a clock of its own.
    set(service, true);
    steps = steps.then(async () => {
      set(DB_WRITE, false);
      await answered;
      set(DB_WRITE, true);
      set(service, false);
    });
  };
  const requests = subjects.map((s) => stack.nc.subscribe(s, { callback: onRequest }));
  await stack.nc.flush();
  set(DB_WRITE, true);

  const dispose = () => {
    disposed = true;
    for (const s of [answers, ...requests]) if (!s.isClosed()) s.unsubscribe();
    for (const name of [service, DB_WRITE]) {
      try {
        set(name, false);
      } catch {
        // killed while held: no process left to let go
      }
    }
  };
  return {
    reached,
    passed,
    dispose,
    async release() {
      if (!effectReply) throw new Error(`${service}'s ${effect.subject} with ${effect.marker} was not reached`);
      const answered = answeredTo(effectReply);
      set(DB_WRITE, false);
      await answered;
      dispose();
    },
  };
}
