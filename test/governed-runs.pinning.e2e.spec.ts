import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentRunResponse, ArtifactRef } from '@runledger/contracts';
import { checkAuditCoverage } from '@runledger/governance';
import { childRunId } from '@runledger/runs';
import { childrenOf, eventsOf, policyVersionsIn, recordedCaller, runTree, RunView, SHIPPED_POLICY_DIR, startRun, uploadCase } from './support/governed-runs';
import { TestStack } from './support/stack';

jest.setTimeout(240_000);

const TERMINAL = ['RunCompleted', 'RunFailed', 'RunDenied', 'RunCancelled'];
const PROFILE_STEPS: Record<string, string[]> = {
  ORCHESTRATOR: ['intake', 'interview', 'mapping', 'export', 'summary'],
  INTAKE_AGENT: ['read', 'assess', 'publish', 'persist'],
  INTERVIEW_AGENT: ['read', 'prompt', 'transcribe', 'status', 'notes', 'publish', 'persist'],
  MAPPING_AGENT: ['read', 'map', 'publish', 'persist'],
};

/**
 * Runs that are in flight while the decision service dies or the policy changes. transcription.run is slowed
 * (tool-gateway fault injection) so an orchestrated workflow is reliably mid-way, inside its INTERVIEW child,
 * when the test acts; a short inbox ack wait makes the redelivery to the restarted service quick.
 */
describe('Governed agent runs in flight: crash resume and pinned policy versions', () => {
  let stack: TestStack;
  const policyDir = mkdtempSync(join(tmpdir(), 'rl-policy-'));
  for (const file of ['lanes.yaml', 'roles.yaml']) copyFileSync(join(SHIPPED_POLICY_DIR, file), join(policyDir, file));
  const oldVersions = policyVersionsIn(policyDir);

  beforeAll(async () => {
    stack = await TestStack.start({
      env: { POLICY_DIR: policyDir, RL_INBOX_ACK_WAIT_MS: '2000' },
      serviceEnv: { 'tool-gateway': { RL_TOOL_FAULTS: 'transcription.run=delay:2500' } },
    });
  });
  afterAll(async () => {
    await stack?.stop();
    rmSync(policyDir, { recursive: true, force: true });
  });

  /** Starts an ORCHESTRATOR run without waiting, and resolves once its INTERVIEW child is inside transcription.run. */
  async function startWorkflowUntilTranscribing(case_id: string): Promise<{ runId: string; request: Record<string, unknown>; reply: Promise<AgentRunResponse | undefined> }> {
    const inputs = await uploadCase(stack, case_id, oldVersions);
    const runId = randomUUID();
    const request = { agent_name: 'ORCHESTRATOR', case_id, run_id: runId, input_artifacts: [inputs.form, inputs.recording, inputs.document], parameters: { client_session_id: 'session-1', coa_version: 'coa-2026.1' } };
    // The reply may never come: the service answering it is about to die.
    const reply = startRun(stack, request, 60_000).catch(() => undefined);
    const interviewRun = childRunId('agent', runId, 'interview');
    await stack.waitFor(async () => (await stack.runEvents(interviewRun)).some((e) => e.type === 'ToolCallRequested' && (e.data as { call_id: string }).call_id === 'transcribe'), 30_000);
    expect((await stack.runEvents(runId)).some((e) => TERMINAL.includes(e.type))).toBe(false);
    return { runId, request, reply };
  }

  const terminalOf = (runId: string) => stack.waitFor(async () => (await stack.runEvents(runId)).find((e) => TERMINAL.includes(e.type)), 90_000);

  it('INV-CP-002: a resumed agent run does not re-run completed steps', async () => {
    const { runId, request } = await startWorkflowUntilTranscribing(`case-${randomUUID().slice(0, 8)}`);
    const beforeCrash = (await stack.runEvents(runId)).filter((e) => e.type === 'StepCompleted').map((e) => (e.data as { step_id: string }).step_id);
    expect(beforeCrash).toEqual(['intake']);

    await stack.kill('decision', 'SIGKILL');
    await stack.startService('decision');
    expect((await terminalOf(runId)).type).toBe('RunCompleted');

    const tree = await runTree(stack, runId);
    const agents = tree.filter((r) => r.created.run_kind === 'agent');
    expect(agents.map((r) => r.created.agent_name).sort()).toEqual(['INTAKE_AGENT', 'INTERVIEW_AGENT', 'MAPPING_AGENT', 'ORCHESTRATOR']);
    for (const run of agents) {
      // Each step completed exactly once (steps of a parallel group in either order): the resumed runs restored what was done.
      const steps = eventsOf<{ step_id: string }>(run, 'StepCompleted').map((s) => s.step_id).sort();
      expect({ agent: run.created.agent_name, steps }).toEqual({ agent: run.created.agent_name, steps: [...PROFILE_STEPS[run.created.agent_name]!].sort() });
      expect(run.types.filter((t) => t === 'RunCreated' || TERMINAL.includes(t))).toEqual(['RunCreated', 'RunCompleted']);
    }
    // Each child run was started once, and each effect happened once.
    const orchestrator = tree.find((r) => r.run_id === runId)!;
    const started = eventsOf<{ child_run_id: string }>(orchestrator, 'ChildRunStarted').map((c) => c.child_run_id);
    expect(started).toHaveLength(3);
    expect(new Set(started).size).toBe(3);
    const interview = agents.find((r) => r.created.agent_name === 'INTERVIEW_AGENT')!;
    // prompt and transcribe are a parallel group: a call in flight at the crash is recorded after the resume.
    expect(eventsOf<{ call_id: string }>(interview, 'ToolCallRequested').map((c) => c.call_id).sort()).toEqual(['prompt', 'status', 'transcribe']);
    expect(eventsOf<{ call_id: string }>(interview, 'ToolCallRecorded').map((c) => c.call_id).sort()).toEqual(['prompt', 'status', 'transcribe']);
    const toolRuns = childrenOf(tree, interview.run_id, 'tool_gateway');
    expect(toolRuns).toHaveLength(3);
    expect(toolRuns.map((t) => t.types.filter((x) => x === 'ToolCallAudited').length)).toEqual([1, 1, 1]);
    const writes = tree.filter((r) => r.created.run_kind === 'db_write');
    expect(writes.length).toBeGreaterThanOrEqual(7);
    expect(writes.every((w) => w.types.filter((t) => t === 'DbWriteAudited').length === 1)).toBe(true);
    expect(checkAuditCoverage(tree.flatMap((r) => r.events.map((e) => ({ run_id: r.run_id, type: e.type, data: e.data })))).violations).toEqual([]);

    // The caller's reply was lost with the process; asking again with the same run id gets the recorded outcome.
    const again = await startRun(stack, request);
    expect(again).toMatchObject({ outcome: 'success', run_id: runId, child_run_ids: started });
  });

  it('§1 every later check of a run uses the versions it pinned, even after the policy files change', async () => {
    const caseId = `case-${randomUUID().slice(0, 8)}`;
    const { runId, request } = await startWorkflowUntilTranscribing(caseId);

    // Roll out a new lanes version in which MAPPING_AGENT may no longer append coa_map, and restart the
    // services that check it; the run above is in flight, pinned to the old version.
    const lanes = readFileSync(join(policyDir, 'lanes.yaml'), 'utf8');
    const newLanes = lanes.replace(`version: ${oldVersions.lanes}`, 'version: lanes-2026.11.2-pinning').replace(/\n\s+- append:coa_map/, '');
    expect(newLanes).not.toContain('append:coa_map');
    writeFileSync(join(policyDir, 'lanes.yaml'), newLanes);
    const newVersions = { lanes: 'lanes-2026.11.2-pinning', roles: oldVersions.roles };
    await Promise.all([stack.restart('decision'), stack.restart('db-write')]);

    // The pinned run resumes on the new service instances and its mapping writes are still allowed.
    expect((await terminalOf(runId)).type).toBe('RunCompleted');
    const pinnedTree = await runTree(stack, runId);
    const pinnedMapping = pinnedTree.find((r) => r.created.agent_name === 'MAPPING_AGENT' && r.created.run_kind === 'agent')!;
    expect(pinnedMapping.created.policy_versions).toEqual(oldVersions);
    const coaWrite = (tree: RunView[], parent: string) => childrenOf(tree, parent, 'db_write').find((w) => w.created.parameters.collection === 'coa_map')!;
    expect(coaWrite(pinnedTree, pinnedMapping.run_id).authz).toMatchObject({ decision: 'allow', policy_versions: oldVersions });
    expect(coaWrite(pinnedTree, pinnedMapping.run_id).types).toContain('DbWriteAudited');

    // A new run pins the new version and is denied the coa_map write at db-write.
    const transcript = eventsOf<{ output_artifacts: ArtifactRef[] }>(pinnedTree.find((r) => r.created.agent_name === 'INTERVIEW_AGENT')!, 'RunCompleted')[0].output_artifacts;
    const mappingRequest = { agent_name: 'MAPPING_AGENT', case_id: caseId, input_artifacts: transcript, parameters: { coa_version: 'coa-2026.1' } };
    const fresh = await startRun(stack, mappingRequest);
    expect(fresh).toMatchObject({ outcome: 'deny', error: { error_code: 'POLICY_DENIED' } });
    const freshTree = await runTree(stack, fresh.run_id);
    expect(freshTree.find((r) => r.run_id === fresh.run_id)!.created.policy_versions).toEqual(newVersions);
    const freshWrites = childrenOf(freshTree, fresh.run_id, 'db_write');
    expect(freshWrites.map((w) => [w.created.parameters.collection, w.authz!.decision])).toEqual([['facts', 'allow'], ['evidence_map', 'allow'], ['coa_map', 'deny']]);
    expect(coaWrite(freshTree, fresh.run_id).authz).toMatchObject({ code: 'LANE.ACTION_DENIED', policy_versions: newVersions });

    // New top-level work may not pick the older, looser version: refused before it becomes a run.
    const downgrade = await startRun(stack, { ...mappingRequest, policy_versions: oldVersions });
    expect(downgrade).toMatchObject({ outcome: 'failure', error: { error_code: 'INVALID_INPUT', retryable: false } });
    expect(downgrade.error!.message).toContain('POLICY');
    expect(await stack.runEvents(downgrade.run_id)).toEqual([]);

    // Work already pinned to the old version keeps being checked against it: a retry of the pinned run answers
    // its recorded outcome, and a child of it inherits its pins (stating them is allowed, they are the parent's).
    const retried = await startRun(stack, { ...request, policy_versions: oldVersions });
    expect(retried).toMatchObject({ outcome: 'success', run_id: runId });
    // The pinned run has finished, so it parents nothing new (Issue 9); an open run pinned to the old version does.
    const afterTheEnd = await startRun(stack, { ...mappingRequest, parent_run_id: runId, policy_versions: oldVersions });
    expect(afterTheEnd).toMatchObject({ outcome: 'deny', error: { error_code: 'RUN.PARENT_TERMINAL' } });
    const openParent = (await recordedCaller(stack, 'ORCHESTRATOR', 'NONE', caseId, oldVersions)).parent_run_id;
    const child = await startRun(stack, { ...mappingRequest, parent_run_id: openParent, policy_versions: oldVersions });
    expect(child.outcome).toBe('success');
    const childTree = await runTree(stack, openParent); // a child joins its parent's tree
    expect(childTree.find((r) => r.run_id === child.run_id)!.created).toMatchObject({ parent_run_id: openParent, root_run_id: openParent, policy_versions: oldVersions });
    expect(coaWrite(childTree, child.run_id).authz).toMatchObject({ decision: 'allow', policy_versions: oldVersions });
    // The child of an old-pinned parent may not move to the new version either: its pins are the parent's.
    const childUpgrade = await startRun(stack, { ...mappingRequest, parent_run_id: openParent, policy_versions: newVersions });
    expect(childUpgrade).toMatchObject({ outcome: 'failure', error: { error_code: 'INVALID_INPUT' } });
  });
});
