/**
 * A session's records beside its journaled calls: §4 accounting entries (`SessionAccounted`, so accounting is a
 * projection of recorded facts, readable while the session runs) and notes (`SessionNoted`: guard decisions,
 * truncations, repairs, budget refusals). Plain data: the decision service appends them as run events, the CLI as lines
 * of its local log file. The model attempts and tool calls are the runtime's journaled steps and tool calls
 * (`durableSession`); the `llm_*` and `tool_*` kinds are the journal sessions wrote before, still read (and answered
 * from, on resume) so their runs stay readable.
 */
import type { ModelResult, SessionLogEntry, ToolExecution } from '../ports';
import type { AccountingEntry } from './types';

export type JournalEntry =
  /** Recorded before the request leaves (target, the expected tokens of §2 LLM Request Metrics). */
  | {
      readonly kind: 'llm_requested';
      readonly seq: number;
      readonly provider: string;
      readonly model: string;
      readonly expected_tokens?: number;
      readonly messages: number;
      readonly tools: readonly string[];
    }
  /** The provider's answer (or classified error) as the loop received it, with its latency. */
  | { readonly kind: 'llm_completed'; readonly seq: number; readonly provider: string; readonly model: string; readonly latency_ms: number; readonly result: ModelResult }
  | { readonly kind: 'tool_requested'; readonly seq: number; readonly call_id: string; readonly name: string; readonly args: Readonly<Record<string, unknown>> }
  | {
      readonly kind: 'tool_completed';
      readonly seq: number;
      readonly call_id: string;
      readonly name: string;
      readonly latency_ms: number;
      readonly execution: ToolExecution;
      /** The session gave up on the call (toolTimeout) before the executor answered. */
      readonly timed_out?: boolean;
    }
  | { readonly kind: 'accounting'; readonly index: number; readonly entry: AccountingEntry }
  /** Context-guard decisions, truncations, repairs, dropped calls, forced-final reasons, budget refusals … */
  | { readonly kind: 'note'; readonly index: number; readonly entry: SessionLogEntry };

export type JournalKind = JournalEntry['kind'];

/** The run event type of each journal entry kind. */
export const JOURNAL_EVENT_TYPES: Readonly<Record<JournalKind, string>> = {
  llm_requested: 'SessionLlmRequested',
  llm_completed: 'SessionLlmCompleted',
  tool_requested: 'SessionToolRequested',
  tool_completed: 'SessionToolCompleted',
  accounting: 'SessionAccounted',
  note: 'SessionNoted',
};

const KIND_OF_TYPE = new Map(Object.entries(JOURNAL_EVENT_TYPES).map(([k, t]) => [t, k as JournalKind]));

export function journalEvent(entry: JournalEntry): { type: string; data: Record<string, unknown> } {
  const { kind, ...data } = entry;
  return { type: JOURNAL_EVENT_TYPES[kind], data };
}

/** The journal entry an event records, or undefined for any other event of the run. */
export function journalEntryOf(event: { type: string; data: unknown }): JournalEntry | undefined {
  const kind = KIND_OF_TYPE.get(event.type);
  return kind ? ({ kind, ...(event.data as object) } as JournalEntry) : undefined;
}

/** §4 accounting as a projection: the recorded entries in index order (a repeated index counts once). */
export function accountingOf(entries: readonly JournalEntry[]): AccountingEntry[] {
  const byIndex = new Map<number, AccountingEntry>();
  for (const e of entries) if (e.kind === 'accounting' && !byIndex.has(e.index)) byIndex.set(e.index, e.entry);
  return [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, entry]) => entry);
}

/** Token and cost totals of recorded accounting, the figures per-run budgets are enforced on. */
export interface SessionUsage {
  readonly llmRequests: number;
  readonly toolCalls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
  readonly costUsd: number;
}

export function usageOf(accounting: readonly AccountingEntry[]): SessionUsage {
  let llmRequests = 0, toolCalls = 0, inputTokens = 0, outputTokens = 0, totalTokens = 0, costUsd = 0;
  for (const e of accounting) {
    if (e.type === 'tool') {
      toolCalls++;
      continue;
    }
    llmRequests++;
    inputTokens += e.tokens.inputTokens;
    outputTokens += e.tokens.outputTokens;
    totalTokens += e.tokens.totalTokens;
    costUsd += e.costUsd ?? 0;
  }
  return { llmRequests, toolCalls, inputTokens, outputTokens, totalTokens, costUsd };
}
