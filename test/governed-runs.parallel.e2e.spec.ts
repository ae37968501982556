import { randomUUID } from 'node:crypto';
import { eventsOf, policyVersionsIn, runView, SHIPPED_POLICY_DIR, startRun, uploadCase } from './support/governed-runs';
import { TestStack } from './support/stack';

jest.setTimeout(180_000);

const versions = policyVersionsIn(SHIPPED_POLICY_DIR);

/**
 * Contract 004 parallel steps in a real service workflow: after `read`, INTERVIEW_AGENT's group runs the
 * independent `prompt` and `transcribe` tool calls side by side. The prompt tool is made to fail
 * (RL_TOOL_FAULTS), so the failure strategy decides what else runs and what is compensated.
 */
describe('Issue 8: parallel steps and failure strategies in governed runs (INV-PE-001, INV-PE-003)', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await TestStack.start({ services: ['decision', 'tool-gateway', 'db-write'], serviceEnv: { 'tool-gateway': { RL_TOOL_FAULTS: 'interview.prompt.next=fail' } } });
  });
  afterAll(async () => stack?.stop());

  async function interview(failure_strategy?: string) {
    const case_id = `case-${randomUUID().slice(0, 8)}`;
    const inputs = await uploadCase(stack, case_id, versions);
    const reply = await startRun(stack, {
      agent_name: 'INTERVIEW_AGENT', case_id, input_artifacts: [inputs.recording],
      parameters: { client_session_id: 'session-1', ...(failure_strategy ? { failure_strategy } : {}) },
    });
    const run = await runView(stack, reply.run_id);
    return { reply, run, steps: eventsOf<{ step_id: string }>(run, 'StepCompleted').map((s) => s.step_id) };
  }

  it('INV-PE-001 + INV-PE-003 failFast: transcribe, second in its parallel group, was already running when prompt failed, so it completes; nothing after the group starts', async () => {
    const { reply, run, steps } = await interview();
    expect(reply.outcome).toBe('failure');
    // With one step at a time, transcribe would never have started after prompt (before it in array order) failed.
    expect(steps).toEqual(['read', 'transcribe']);
    const calls = eventsOf<{ call_id: string; sequence: number }>(run, 'ToolCallRequested');
    expect(calls.map((c) => c.call_id).filter((id) => !id.startsWith('prompt'))).toEqual(['transcribe']);
    expect(new Set(calls.map((c) => c.sequence)).size).toBe(calls.length);
    expect(run.types[run.types.length - 1]).toBe('RunFailed');
  });

  it('INV-PE-003 continueOnError: everything that does not need the failed prompt runs; the steps needing it are skipped and the run fails with the failure', async () => {
    const { reply, run, steps } = await interview('continueOnError');
    expect(reply.outcome).toBe('failure');
    expect(steps).toEqual(['read', 'transcribe', 'status']);
    expect(eventsOf<{ call_id: string }>(run, 'ToolCallRequested').map((c) => c.call_id).filter((id) => !id.startsWith('prompt'))).toEqual(['transcribe', 'status']);
    expect(eventsOf(run, 'StepCompensated')).toEqual([]);
  });

  it('INV-PE-003 rollback: the completed step is compensated, the compensation is an event in the run, and the run says it rolled back', async () => {
    const { run, steps } = await interview('rollback');
    expect(steps).toEqual(['read', 'transcribe']);
    // Reverse completion order: a step is withdrawn before the step it built on.
    expect(eventsOf<{ step_id: string }>(run, 'StepCompensated').map((c) => c.step_id)).toEqual(['transcribe', 'read']);
    expect(eventsOf<{ error: { error_code: string } }>(run, 'RunFailed')[0]!.error).toMatchObject({ error_code: 'WORKFLOW.ROLLED_BACK' });
  });

  it('INV-PE-003 an unknown failure_strategy is refused at runs.start (§2.2 INVALID_INPUT naming the three), never run as failFast; no run is recorded', async () => {
    const case_id = `case-${randomUUID().slice(0, 8)}`;
    const inputs = await uploadCase(stack, case_id, versions);
    for (const failure_strategy of ['bogus', 'failfast']) {
      const run_id = randomUUID();
      const reply = await startRun(stack, { agent_name: 'INTERVIEW_AGENT', case_id, run_id, input_artifacts: [inputs.recording], parameters: { client_session_id: 'session-1', failure_strategy } });
      expect(reply).toMatchObject({ outcome: 'failure', run_id, error: { error_code: 'INVALID_INPUT', retryable: false, message: expect.stringContaining('failFast, continueOnError, rollback') } });
      expect(await stack.runEvents(run_id)).toEqual([]);
    }
  });

  it('INV-PE-001: INTAKE_AGENT publishes and persists as a parallel group and completes', async () => {
    const case_id = `case-${randomUUID().slice(0, 8)}`;
    const inputs = await uploadCase(stack, case_id, versions);
    const reply = await startRun(stack, { agent_name: 'INTAKE_AGENT', case_id, input_artifacts: [inputs.form], parameters: {} });
    expect(reply.outcome).toBe('success');
    const steps = eventsOf<{ step_id: string }>(await runView(stack, reply.run_id), 'StepCompleted').map((s) => s.step_id);
    expect(steps.slice(0, 2)).toEqual(['read', 'assess']);
    expect(steps.slice(2).sort()).toEqual(['persist', 'publish']);
  });
});
