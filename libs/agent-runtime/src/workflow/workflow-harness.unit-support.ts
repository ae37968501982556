// Test support only (not exported from the lib). Pure: the spec files own the
// event-loop helper (`flush`) and pass it in, so this file needs no timers.
import type { Checkpoint, WorkflowStep } from './types';
import type { StepContext } from './run-types';

export const step = (id: string, extra: Partial<WorkflowStep> = {}): WorkflowStep => ({ id, name: id, ...extra });

interface Pending {
  resolve: (output: unknown) => void;
  reject: (error: Error) => void;
  ctx: StepContext;
}

/** A runStep whose steps finish only when the test says so; `flush` lets the scheduler react. */
export function controlledSteps(flush: () => Promise<void>) {
  const pending = new Map<string, Pending>();
  const started: string[] = [];
  let active = 0;
  let maxActive = 0;
  const runStep = (s: WorkflowStep, ctx: StepContext): Promise<unknown> => {
    started.push(s.id);
    active++;
    maxActive = Math.max(maxActive, active);
    return new Promise((resolve, reject) => {
      pending.set(s.id, {
        ctx,
        resolve: (v) => {
          active--;
          resolve(v);
        },
        reject: (e) => {
          active--;
          reject(e);
        },
      });
    });
  };
  const get = (id: string): Pending => {
    const p = pending.get(id);
    if (p === undefined) throw new Error(`step ${id} has not started`);
    return p;
  };
  return {
    runStep,
    started,
    maxActive: () => maxActive,
    ctx: (id: string) => get(id).ctx,
    finish: async (id: string, output: unknown = `${id}-out`) => {
      get(id).resolve(output);
      await flush();
    },
    fail: async (id: string, message = `${id} broke`) => {
      get(id).reject(new Error(message));
      await flush();
    },
  };
}

/** A runStep that completes immediately with `<id>-out` and records the order of calls. */
export function instantSteps(failing: readonly string[] = []) {
  const calls: string[] = [];
  const runStep = async (s: WorkflowStep): Promise<unknown> => {
    calls.push(s.id);
    if (failing.includes(s.id)) throw new Error(`${s.id} broke`);
    return `${s.id}-out`;
  };
  return { calls, runStep };
}

export function recordCheckpoints() {
  const saved: Checkpoint[] = [];
  return { saved, onCheckpoint: async (cp: Checkpoint) => void saved.push(cp) };
}
