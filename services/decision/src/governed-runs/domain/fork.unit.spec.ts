import { foldEvents, recorded } from '@runledger/event-log';
import { evolveRun, initialRunState, RunEvent, withRestored } from '@runledger/runs';
import { checkpointAt, decideFork, forkRunId, restoredCheckpoint } from './fork';
import { hashRequest, runCreatedOf, type AgentRunCreatedData, type AgentRunSpec } from './run-spec';

const OLD = { lanes: 'lanes-1', roles: 'roles-1' };
const NEW = { lanes: 'lanes-2', roles: 'roles-1' };
const source: AgentRunSpec = {
  run_id: '11111111-1111-4111-8111-111111111111', agent_name: 'INTERVIEW_AGENT', case_id: 'case-1', root_run_id: '11111111-1111-4111-8111-111111111111',
  correlation_id: 'corr-1', policy_versions: OLD, input_artifacts: [], parameters: { client_session_id: 's1' }, request_hash_sha256: 'a'.repeat(64), requested_by: 'caller',
};
const step = (step_index: number, step_id: string, output: unknown): RunEvent => ({ type: 'StepCompleted', data: { step_index, step_id, output, context: {} } });
const opening = (created: AgentRunCreatedData): RunEvent[] => [
  { type: 'RunCreated', data: created }, { type: 'AuthzDecided', data: { decision: 'allow', policy_versions: created.policy_versions } }, { type: 'RunStarted', data: {} },
];
const ended: RunEvent[] = [
  ...opening(runCreatedOf(source)), step(0, 'read', { session: 1 }), step(1, 'prompt', { prompts: [] }), step(2, 'transcribe', { transcription_id: 't1' }),
  step(3, 'status', { state: 'completed' }), { type: 'RunCompleted', data: { output_artifacts: [] } },
];
const stateOf = (events: RunEvent[]) => foldEvents(evolveRun, initialRunState(), recorded(events));
const request = { from_step: 'transcribe', request_id: 'op-1', requested_by: 'alice', policy_versions: NEW };
const decide = (events: RunEvent[], req = request, existing?: AgentRunCreatedData) => decideFork(stateOf(events), recorded(events), req, existing);

describe('Issue 25 fork decider (rl.runs.fork)', () => {
  it('a fork is the source request under the new pin: same agent, case, inputs, parameters and caller, its own root, forked_from, an id from request_id', () => {
    const d = decide(ended);
    if (!d.ok) throw new Error(d.message);
    const id = forkRunId(source.run_id, 'op-1');
    expect(d.spec).toMatchObject({
      run_id: id, root_run_id: id, correlation_id: id, agent_name: 'INTERVIEW_AGENT', case_id: 'case-1', parameters: source.parameters, requested_by: 'caller',
      policy_versions: NEW, forked_from: { run_id: source.run_id, checkpoint: 'transcribe', request_id: 'op-1', requested_by: 'alice' },
    });
    expect(d.spec.parent_run_id).toBeUndefined();
    // The hash is of the request the fork makes (its pin differs), so it is never taken for the source's request.
    expect(d.spec.request_hash_sha256).toBe(hashRequest({ agent_name: 'INTERVIEW_AGENT', case_id: 'case-1', policy_versions: NEW, input_artifacts: [], parameters: source.parameters }));
    expect(forkRunId(source.run_id, 'op-2')).not.toBe(id);
  });

  it('FORK.RUN_NOT_FOUND: no run at the source id', () => {
    expect(decide([])).toMatchObject({ ok: false, code: 'FORK.RUN_NOT_FOUND' });
  });

  it('FORK.CHECKPOINT_NOT_IN_RUN: the step is not a completed step of the source (its checkpoints are listed)', () => {
    const d = decide(ended, { ...request, from_step: 'persist' });
    expect(d).toMatchObject({ ok: false, code: 'FORK.CHECKPOINT_NOT_IN_RUN' });
    expect(!d.ok && d.message).toContain('read, prompt, transcribe, status');
  });

  it('FORK.SOURCE_NOT_TERMINAL: a run still open is not forked (its own steps would race the fork)', () => {
    expect(decide(ended.slice(0, -1))).toMatchObject({ ok: false, code: 'FORK.SOURCE_NOT_TERMINAL' });
  });

  it('FORK.NOT_FORKABLE: a child run, a run of another kind or a non-governed agent', () => {
    const child = runCreatedOf({ ...source, run_id: 'c1', parent_run_id: source.run_id });
    expect(decide([...opening(child), { type: 'RunCompleted', data: { output_artifacts: [] } }])).toMatchObject({ ok: false, code: 'FORK.NOT_FORKABLE' });
    const task = { ...runCreatedOf(source), agent_name: 'TASK_ASSISTANT' };
    expect(decide([...opening(task), { type: 'RunCompleted', data: { output_artifacts: [] } }])).toMatchObject({ ok: false, code: 'FORK.NOT_FORKABLE' });
    const tool = { ...runCreatedOf(source), run_kind: 'tool_gateway' as const };
    expect(decide([...opening(tool), { type: 'RunCompleted', data: { output_artifacts: [] } }])).toMatchObject({ ok: false, code: 'FORK.NOT_FORKABLE' });
  });

  it('the same request_id forks once: a repeat answers the recorded fork; another checkpoint or policy under it is FORK.REQUEST_CONFLICT', () => {
    const first = decide(ended);
    if (!first.ok) throw new Error(first.message);
    const recordedFork = runCreatedOf(first.spec);
    expect(decide(ended, { ...request, requested_by: 'bob' }, recordedFork)).toEqual({ ok: true, spec: first.spec });
    expect(decide(ended, { ...request, from_step: 'prompt' }, recordedFork)).toMatchObject({ ok: false, code: 'FORK.REQUEST_CONFLICT' });
    expect(decide(ended, { ...request, policy_versions: OLD }, recordedFork)).toMatchObject({ ok: false, code: 'FORK.REQUEST_CONFLICT' });
    // A run at the fork's id that is no fork (a caller-chosen run id) is never adopted.
    expect(decide(ended, request, runCreatedOf({ ...source, run_id: recordedFork.run_id }))).toMatchObject({ ok: false, code: 'FORK.REQUEST_CONFLICT' });
  });
});

describe('Issue 25 fork restore by reference (INV-CP-001/002)', () => {
  it('the checkpoint at a step holds the outputs completed up to and including it, in log order, and nothing after', () => {
    const cp = checkpointAt(recorded(ended), 'prompt');
    expect(cp).toMatchObject({ stepIndex: 1, completedStepId: 'prompt' });
    expect(Object.keys(cp!.stepOutputs)).toEqual(['read', 'prompt']);
    expect(checkpointAt(recorded(ended), 'notes')).toBeNull();
  });

  it('the fork resumes from the restored checkpoint under its own: its own steps win, restored ones stay restored', () => {
    const restored = checkpointAt(recorded(ended), 'transcribe')!;
    const own = stateOf([...opening(runCreatedOf({ ...source, run_id: 'f1' })), step(3, 'status', { state: 'completed' })]).checkpoint;
    const merged = withRestored(restored, own)!;
    expect(merged).toMatchObject({ stepIndex: 3, completedStepId: 'status' });
    expect(Object.keys(merged.stepOutputs).sort()).toEqual(['prompt', 'read', 'status', 'transcribe']);
    expect(withRestored(restored, null)).toBe(restored);
    expect(withRestored(null, own)).toBe(own);
  });

  it('a fork of a fork restores what its source restored too, from that source\'s own source, link by link', async () => {
    const first = decide(ended, { ...request, from_step: 'prompt' });
    if (!first.ok) throw new Error(first.message);
    // The first fork restored read and prompt from the source, then computed transcribe and status itself.
    const firstFork = [...opening(runCreatedOf(first.spec)), step(2, 'transcribe', { transcription_id: 't2' }), step(3, 'status', { state: 'completed' }), { type: 'RunFailed', data: { error: { error_code: 'POLICY_DENIED', message: 'no', retryable: false } } } as RunEvent];
    const logs: Record<string, RunEvent[]> = { [source.run_id]: ended, [first.spec.run_id]: firstFork };
    const load = async (id: string) => ({ state: stateOf(logs[id] ?? []), events: recorded(logs[id] ?? []) });
    const cp = await restoredCheckpoint({ run_id: first.spec.run_id, checkpoint: 'transcribe' }, load);
    expect(cp).toMatchObject({ completedStepId: 'transcribe', stepOutputs: { read: { session: 1 }, prompt: { prompts: [] }, transcribe: { transcription_id: 't2' } } });
    expect(Object.keys(cp!.stepOutputs)).not.toContain('status');
    expect(await restoredCheckpoint({ run_id: first.spec.run_id, checkpoint: 'persist' }, load)).toBeNull();
  });
});
