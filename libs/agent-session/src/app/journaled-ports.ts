import { accountingOf, usageOf, type JournalEntry } from '../domain/journal-events';
import type { AccountingEntry } from '../domain/types';
import type { Model, ModelResult, SessionLogEntry, SessionPorts, Sleeper, ToolExecution, ToolExecutor } from '../ports';

/** Where a durable session's journal lives: the run's events in decision, a local file in the CLI. */
export interface SessionJournal {
  /** Everything recorded for this session before this carrier started, in log order. */
  readonly recorded: readonly JournalEntry[];
  /** Appends one entry; must be idempotent per (kind, seq/index) so a retried append is harmless. */
  append(entry: JournalEntry): Promise<void>;
}

/** Per-run budgets (issue 7), enforced before each model request from the recorded accounting. */
export interface SessionBudget {
  readonly maxTotalTokens?: number;
  readonly maxCostUsd?: number;
}

export interface JournaledSession {
  readonly ports: SessionPorts;
  /** The accounting projection: recorded entries plus those appended by this carrier. */
  accounting(): AccountingEntry[];
  /** Waits for every queued append; rejects with the first append failure. */
  flush(): Promise<void>;
  /** The first append that failed: the session's record is incomplete and the carrier must not finish it. */
  readonly failure: unknown;
  /** How many recorded model answers and tool results were replayed instead of sent again. */
  readonly replayed: { readonly llm: number; readonly tools: number };
}

function bySeq<K extends 'llm_completed' | 'tool_completed' | 'llm_requested' | 'tool_requested'>(entries: readonly JournalEntry[], kind: K) {
  const map = new Map<number, Extract<JournalEntry, { kind: K }>>();
  for (const e of entries) if (e.kind === kind) map.set((e as { seq: number }).seq, e as Extract<JournalEntry, { kind: K }>);
  return map;
}

/**
 * Wraps a session's ports so every interaction is journaled before and after it happens, and a session
 * started again over the same journal replays instead of repeating: the loop is deterministic given its
 * port results, so feeding it the recorded model answers and tool results (in order) rebuilds exactly the
 * state it had — the state is a fold of the journal — and it carries on live from the first interaction
 * with no recorded outcome. Accounting entries and notes regenerated during replay are not appended again.
 */
export function journaledPorts(base: SessionPorts, journal: SessionJournal, budget: SessionBudget = {}): JournaledSession {
  const llmDone = bySeq(journal.recorded, 'llm_completed');
  const llmAsked = bySeq(journal.recorded, 'llm_requested');
  const toolDone = bySeq(journal.recorded, 'tool_completed');
  const toolAsked = bySeq(journal.recorded, 'tool_requested');
  const accounting = accountingOf(journal.recorded);
  const recordedNotes = journal.recorded.filter((e) => e.kind === 'note').length;
  const lastRecordedLlm = Math.max(0, ...llmDone.keys());
  const lastRecordedTool = Math.max(0, ...toolDone.keys());

  let llmSeq = 0;
  let toolSeq = 0;
  let noteIndex = 0;
  let queue: Promise<void> = Promise.resolve();
  let failure: unknown;
  let prepared: Readonly<Record<string, unknown>> | undefined;
  const replayed = { llm: 0, tools: 0 };
  const recordedCount = accounting.length;
  let regenerated = 0;

  const enqueue = (entry: JournalEntry): Promise<void> => {
    queue = queue.then(() => (failure === undefined ? journal.append(entry) : undefined)).catch((e: unknown) => {
      failure ??= e;
    });
    return queue;
  };
  const flush = async (): Promise<void> => {
    await queue;
    if (failure !== undefined) throw failure instanceof Error ? failure : new Error(String(failure));
  };
  const replaying = () => llmSeq < lastRecordedLlm || toolSeq < lastRecordedTool;
  const note = (entry: SessionLogEntry) => {
    const index = noteIndex++;
    if (index >= recordedNotes) void enqueue({ kind: 'note', index, entry });
  };

  const model: Model = {
    async call(request): Promise<ModelResult> {
      const seq = ++llmSeq;
      const done = llmDone.get(seq);
      if (done) {
        replayed.llm++;
        return done.result;
      }
      const overBudget = budgetRefusal(budget, accounting);
      if (overBudget) {
        note({ level: 'error', event: 'budget_refused', message: overBudget, data: { ...budget, usage: usageOf(accounting) } });
        await flush();
        return { ok: false, error: { kind: 'quota', message: overBudget } };
      }
      if (!llmAsked.has(seq)) {
        void enqueue({
          kind: 'llm_requested', seq, provider: request.target.provider, model: request.target.model,
          ...(typeof prepared?.expectedTokens === 'number' ? { expected_tokens: prepared.expectedTokens } : {}),
          messages: request.messages.length, tools: request.tools.map((t) => t.name),
        });
      }
      await flush();
      const started = base.clock.now().getTime();
      const result = await base.model.call(request);
      await enqueue({ kind: 'llm_completed', seq, provider: request.target.provider, model: request.target.model, latency_ms: base.clock.now().getTime() - started, result });
      await flush();
      return result;
    },
  };

  const tools: ToolExecutor = {
    async execute(name, args, options): Promise<ToolExecution> {
      const seq = ++toolSeq;
      const done = toolDone.get(seq);
      if (done) {
        replayed.tools++;
        // A call the session gave up on stays given up on: only the session's own timer may end it again.
        if (done.timed_out) return new Promise((resolve) => options.signal.addEventListener('abort', () => resolve(done.execution), { once: true }));
        return done.execution;
      }
      const callId = toolAsked.get(seq)?.call_id ?? `tool-${seq}`;
      if (!toolAsked.has(seq)) void enqueue({ kind: 'tool_requested', seq, call_id: callId, name, args });
      await flush();
      if (!base.tools) return { ok: false, error: 'no tool executor is configured' };
      const started = base.clock.now().getTime();
      let settled = false;
      const record = (execution: ToolExecution, timedOut: boolean) => {
        if (settled) return;
        settled = true;
        void enqueue({ kind: 'tool_completed', seq, call_id: callId, name, latency_ms: base.clock.now().getTime() - started, execution, ...(timedOut ? { timed_out: true } : {}) });
      };
      // The session aborts the signal when its toolTimeout wins; record that outcome at once, in order.
      const onAbort = () => record({ ok: false, error: 'timeout' }, true);
      options.signal.addEventListener('abort', onAbort, { once: true });
      try {
        const execution = await base.tools.execute(name, args, { ...options, callId });
        record(execution, false);
        return execution;
      } catch (e) {
        const execution: ToolExecution = { ok: false, error: e instanceof Error ? e.message : String(e) };
        record(execution, false);
        return execution;
      } finally {
        options.signal.removeEventListener('abort', onAbort);
        await queue;
      }
    },
  };

  const sleeper: Sleeper = {
    sleep(ms, signal) {
      if (!replaying()) return base.sleeper.sleep(ms, signal);
      // Replaying: backoff already happened. A tool timer ends only with its call, unless the call timed out.
      if (!signal) return Promise.resolve();
      if (toolDone.get(toolSeq + 1)?.timed_out) return Promise.resolve();
      return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
    },
  };

  const ports: SessionPorts = {
    ...base,
    model,
    tools,
    sleeper,
    recorder: {
      async record(entry) {
        // Entries regenerated while replaying were recorded already: counted, not appended again.
        if (regenerated < recordedCount) {
          regenerated++;
          return;
        }
        const index = accounting.length;
        accounting.push(entry);
        await enqueue({ kind: 'accounting', index, entry });
        await base.recorder?.record(entry);
      },
    },
    logger: {
      log(entry) {
        if (entry.event === 'llm_request_prepared') prepared = entry.data;
        note(entry);
        base.logger?.log(entry);
      },
    },
  };
  return {
    ports,
    accounting: () => [...accounting],
    flush,
    get failure() {
      return failure;
    },
    replayed,
  };
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
