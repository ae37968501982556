import { accountingOf, usageOf, type JournalEntry } from '../domain/journal-events';
import { TOOL_TIMED_OUT } from '../domain/tool-record';
import type { AccountingEntry } from '../domain/types';
import type { Model, ModelResult, SessionLogEntry, SessionPorts, SessionRuntime, Sleeper, ToolExecution, ToolExecutor } from '../ports';

/** Per-run budgets (issue 7), enforced before each model request from the session's accounting. */
export interface SessionBudget {
  readonly maxTotalTokens?: number;
  readonly maxCostUsd?: number;
}

/** What one model attempt's journaled step holds: the answer as the loop received it, and where it was asked. */
export interface LlmStepOutput {
  readonly provider: string;
  readonly model: string;
  readonly result: ModelResult;
}

export interface DurableSession {
  readonly ports: SessionPorts;
  /** §4 accounting: the recorded entries (as they happened) followed by those this carrier recorded. */
  accounting(): AccountingEntry[];
  /** Waits for the last journaled call (a tool call the session gave up on is still recorded); rejects with the first runtime failure. */
  settle(): Promise<void>;
}

/** The step id of the `seq`th model attempt of a session (1-based). */
export const llmStepId = (seq: number): string => `llm-${seq}`;
/** The call id of the `seq`th tool call of a session (1-based): it names the call's tool_gateway child run. */
export const toolCallId = (seq: number): string => `tool-${seq}`;

/**
 * A session on a journaled runtime (the run engine in decision, a file store in the CLI): every model attempt is a
 * journaled step (`llm-N`) and every tool call a journaled tool call (`tool-N`), so a session started again on the same
 * journal gets the recorded outcomes back instead of asking again — the loop is deterministic given its port results,
 * so it rebuilds exactly the state it had and goes on live from the first call with no recorded outcome. Accounting
 * entries and notes are records (with the runtime's next write), not replay inputs: on resume the entries regenerated
 * for recorded calls are answered by the recorded ones (their real latencies and times), and only new ones appended.
 *
 * `recorded` is what the journal holds of accounting and notes — and, for sessions journaled before the engine carried
 * them, their SessionLlmCompleted / SessionToolCompleted entries, answered like recorded steps and calls.
 */
export function durableSession(base: SessionPorts, runtime: SessionRuntime, opts: { recorded?: readonly JournalEntry[]; budget?: SessionBudget } = {}): DurableSession {
  const recorded = opts.recorded ?? [];
  const budget = opts.budget ?? {};
  const legacyLlm = new Map<number, ModelResult>();
  const legacyTools = new Map<number, ToolExecution>();
  for (const e of recorded) {
    if (e.kind === 'llm_completed') legacyLlm.set(e.seq, e.result);
    if (e.kind === 'tool_completed') legacyTools.set(e.seq, e.timed_out ? TOOL_TIMED_OUT : e.execution);
  }
  const recordedAccounting = accountingOf(recorded);
  const recordedNotes = recorded.filter((e) => e.kind === 'note').length;
  const accounting: AccountingEntry[] = [];
  let llmSeq = 0;
  let toolSeq = 0;
  let notes = 0;
  // One journaled call at a time: a tool call the session stopped waiting for (toolTimeout) is recorded before the next.
  let last: Promise<unknown> = Promise.resolve();
  let failure: unknown;

  /** Runs `call` after the previous journaled call; a runtime failure stops every later call (the carrier must not finish). */
  const journaled = <T>(call: () => Promise<T>): Promise<T> => {
    const next = last.then(() => {
      if (failure !== undefined) throw failure;
      return call();
    });
    last = next.catch((e: unknown) => {
      failure ??= e;
    });
    return next;
  };
  const note = (entry: SessionLogEntry): void => {
    const index = notes++;
    // A failed record is the session's `failure` (settle rejects); not an unhandled rejection here.
    if (index >= recordedNotes) journaled(() => runtime.record({ kind: 'note', index, entry })).catch(() => undefined);
  };
  const recordedStep = (seq: number) => legacyLlm.has(seq) || runtime.isRecorded(llmStepId(seq));

  const model: Model = {
    async call(request): Promise<ModelResult> {
      const seq = ++llmSeq;
      const legacy = legacyLlm.get(seq);
      if (legacy) return legacy;
      // Decided on the accounting the loop regenerates identically on resume: no journal entry is needed for it.
      const overBudget = budgetRefusal(budget, accounting);
      if (overBudget) {
        note({ level: 'error', event: 'budget_refused', message: overBudget, data: { ...budget, usage: usageOf(accounting) } });
        return { ok: false, error: { kind: 'quota', message: overBudget } };
      }
      const { provider, model: name } = request.target;
      const out = await journaled(() => runtime.step<LlmStepOutput>(llmStepId(seq), seq, async () => ({ provider, model: name, result: await callModel(base.model, request) })));
      return out.result;
    },
  };

  const tools: ToolExecutor = {
    async execute(name, args, options): Promise<ToolExecution> {
      const seq = ++toolSeq;
      const legacy = legacyTools.get(seq);
      if (legacy) return legacy;
      const callId = toolCallId(seq);
      const live = (): Promise<ToolExecution> => new Promise((resolve) => {
        // The session aborts the signal when its toolTimeout wins: that is the call's recorded outcome.
        if (options.signal.aborted) return resolve(TOOL_TIMED_OUT);
        options.signal.addEventListener('abort', () => resolve(TOOL_TIMED_OUT), { once: true });
        if (!base.tools) return resolve({ ok: false, error: 'no tool executor is configured' });
        base.tools.execute(name, args, { ...options, callId }).then(resolve, (e: unknown) => resolve({ ok: false, error: e instanceof Error ? e.message : String(e) }));
      });
      return journaled(() => runtime.toolCall({ call_id: callId, seq, tool_name: name, parameters: { ...args } }, live));
    },
  };

  const sleeper: Sleeper = {
    // A backoff before an attempt already recorded has been waited: a resumed session does not wait it again.
    sleep: (ms, signal) => (!signal && recordedStep(llmSeq + 1) ? Promise.resolve() : base.sleeper.sleep(ms, signal)),
  };

  const ports: SessionPorts = {
    ...base,
    model,
    tools,
    sleeper,
    recorder: {
      async record(entry) {
        const index = accounting.length;
        const kept = recordedAccounting[index];
        accounting.push(kept ?? entry);
        if (kept) return;
        await journaled(() => runtime.record({ kind: 'accounting', index, entry }));
        await base.recorder?.record(entry);
      },
    },
    logger: {
      log(entry) {
        note(entry);
        base.logger?.log(entry);
      },
    },
  };
  return {
    ports,
    accounting: () => [...accounting, ...recordedAccounting.slice(accounting.length)],
    async settle() {
      await last;
      if (failure !== undefined) throw failure instanceof Error ? failure : new Error(String(failure));
    },
  };
}

/** A model adapter that throws still yields a classified answer, recorded like any other (§2 Always Return Output). */
async function callModel(model: Model, request: Parameters<Model['call']>[0]): Promise<ModelResult> {
  try {
    return await model.call(request);
  } catch (e) {
    return { ok: false, error: { kind: 'model', message: `model adapter failed: ${e instanceof Error ? e.message : String(e)}` } };
  }
}

function budgetRefusal(budget: SessionBudget, accounting: readonly AccountingEntry[]): string | undefined {
  const usage = usageOf(accounting);
  if (budget.maxTotalTokens !== undefined && usage.totalTokens >= budget.maxTotalTokens) {
    return `token budget exhausted: ${usage.totalTokens} of ${budget.maxTotalTokens} tokens used`;
  }
  if (budget.maxCostUsd !== undefined && usage.costUsd >= budget.maxCostUsd) {
    return `cost budget exhausted: ${usage.costUsd.toFixed(6)} of ${budget.maxCostUsd} USD spent`;
  }
  return undefined;
}
