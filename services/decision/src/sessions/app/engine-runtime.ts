import { executionOf, journalEvent, recordedOutcomeOf, type SessionRuntime } from '@runledger/agent-session';
import type { RunEngine } from '@runledger/runs';

/**
 * A session's journaled runtime is its run's engine: a model attempt is a step (StepCompleted `llm-N`), a gateway tool
 * call a tool call (ToolCallRequested before, ToolCallRecorded after, under call id `tool-N`, whose tool_gateway child
 * run answers a re-ask with its recorded outcome), and a sub-agent call a step around the child session run (the
 * child is recorded as ChildRunStarted before it is asked for, and its id derives from the call). Accounting entries
 * and notes travel with the run's next write.
 */
export function engineRuntime(engine: RunEngine, subAgents: ReadonlySet<string>): SessionRuntime {
  return {
    step: (stepId, stepIndex, compute) => engine.step(stepId, stepIndex, compute),
    isRecorded: (stepId) => Object.hasOwn(engine.state.checkpoint?.stepOutputs ?? {}, stepId),
    async toolCall(call, execute) {
      if (subAgents.has(call.tool_name)) return engine.step(call.call_id, call.seq, execute);
      const recorded = await engine.toolCall(
        { call_id: call.call_id, tool_name: call.tool_name, parameters: call.parameters },
        async (child_run_id) => ({ child_run_id, ...recordedOutcomeOf(await execute()) }),
        // Asked again under the same call id after a crash, the gateway answers from its child run.
        { record: 'with-next' },
      );
      return executionOf(recorded);
    },
    record: (entry) => engine.session.decide({ type: 'Record', events: [journalEvent(entry)] }, `${entry.kind}:${entry.index}`, { defer: true }),
  };
}
