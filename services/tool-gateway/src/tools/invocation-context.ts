import { AsyncLocalStorage } from 'node:async_hooks';
import type { GovernanceScope } from '@runledger/contracts';
import type { Bus } from '@runledger/messaging';
import type { Clock } from '@runledger/kernel';

/** What a tool implementation may know about the call it serves. */
export interface InvocationContext {
  child_run_id: string;
  call_id: string;
  governance: GovernanceScope;
  bus: Bus;
  clock: Clock;
  /** Aborted once the gateway has given up on the call (timeout): a tool must start no effect after that. */
  signal?: AbortSignal;
  /** Set by a tool before it sends an effect: after that a timeout no longer means "nothing happened". */
  effects?: { started: boolean };
}

// Tools are registered once with agent-runtime's ToolRegistry (input validation, frozen results, unknown-tool
// handling); the per-call context reaches them through async-local storage instead of widening that API.
const storage = new AsyncLocalStorage<InvocationContext>();

export function withInvocation<T>(ctx: InvocationContext, fn: () => Promise<T>): Promise<T> {
  return storage.run(ctx, fn);
}

export function currentInvocation(): InvocationContext {
  const ctx = storage.getStore();
  if (!ctx) throw new Error('tool executed outside the tool gateway');
  return ctx;
}
