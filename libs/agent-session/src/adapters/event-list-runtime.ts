import { journalEvent } from '../domain/journal-events';
import { executionOf, recordedOutcomeOf, type RecordedToolOutcome } from '../domain/tool-record';
import type { SessionRuntime } from '../ports';

export interface JournalEvent {
  readonly type: string;
  readonly data: unknown;
}

/**
 * A SessionRuntime over an append-only list of events, for a session carried outside the run engine (the CLI's local
 * log file, tests): it writes the run engine's event types — `StepCompleted` for a step, `ToolCallRequested` before
 * and `ToolCallRecorded` after a tool call — so the journal reads like a run's, and answers from what `events` (the
 * journal as read at start) and its own appends hold. `append` must be durable before it resolves.
 */
export function eventListRuntime(events: readonly JournalEvent[], append: (event: JournalEvent) => Promise<void>): SessionRuntime {
  const steps = new Map<string, unknown>();
  const requested = new Set<string>();
  const outcomes = new Map<string, RecordedToolOutcome>();
  const fold = (e: JournalEvent) => {
    const d = e.data as Record<string, unknown>;
    if (e.type === 'StepCompleted' && !steps.has(d.step_id as string)) steps.set(d.step_id as string, d.output);
    if (e.type === 'ToolCallRequested') requested.add(d.call_id as string);
    if (e.type === 'ToolCallRecorded' && !outcomes.has(d.call_id as string)) outcomes.set(d.call_id as string, d as unknown as RecordedToolOutcome);
  };
  events.forEach(fold);
  const write = async (event: JournalEvent) => {
    await append(event);
    fold(event);
  };
  return {
    isRecorded: (stepId) => steps.has(stepId),
    async step<T>(stepId: string, stepIndex: number, compute: () => Promise<T>): Promise<T> {
      if (steps.has(stepId)) return steps.get(stepId) as T;
      const output = await compute();
      await write({ type: 'StepCompleted', data: { step_index: stepIndex, step_id: stepId, output } });
      return output;
    },
    async toolCall(call, execute) {
      const recorded = outcomes.get(call.call_id);
      if (recorded) return executionOf(recorded);
      if (!requested.has(call.call_id)) {
        await write({ type: 'ToolCallRequested', data: { call_id: call.call_id, sequence: call.seq, tool_name: call.tool_name, parameters: call.parameters } });
      }
      const execution = await execute();
      await write({ type: 'ToolCallRecorded', data: { call_id: call.call_id, ...recordedOutcomeOf(execution) } });
      return execution;
    },
    record: (entry) => write(journalEvent(entry)),
  };
}
