import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentRunResponse, ArtifactRef } from '@runledger/contracts';
import { checkAuditCoverage } from '@runledger/governance';
import { childRunId } from '@runledger/runs';
import type { RunForkResult } from '@runledger/contracts';
import { decodeReply, encodeJson } from '@runledger/messaging';
import type { NatsConnection } from '@nats-io/transport-node';
import { runCli } from './support/cli';
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

  it('Issue 25 fork: an operator forks an ended run from a checkpoint under a new policy version; the restored steps are not re-executed, the fork ends as the new policy decides, the source is unchanged, one request_id forks once', async () => {
    const caseId = `case-${randomUUID().slice(0, 8)}`;
    const tag = randomUUID().slice(0, 8);
    const shipped = readFileSync(join(SHIPPED_POLICY_DIR, 'lanes.yaml'), 'utf8');
    const rollOut = async (version: string, lanes: string) => {
      writeFileSync(join(policyDir, 'lanes.yaml'), lanes.replace(`version: ${oldVersions.lanes}`, `version: ${version}`));
      await Promise.all([stack.restart('decision'), stack.restart('db-write')]);
    };
    // The source: a whole workflow under a lanes version that allows every write (whatever an earlier test rolled out).
    const allowAll = { lanes: `lanes-fork-${tag}-a`, roles: oldVersions.roles };
    await rollOut(allowAll.lanes, shipped);
    const inputs = await uploadCase(stack, caseId, allowAll);
    const source = await startRun(stack, { agent_name: 'ORCHESTRATOR', case_id: caseId, input_artifacts: [inputs.form, inputs.recording, inputs.document], parameters: { client_session_id: 'session-1', coa_version: 'coa-2026.1' } });
    expect(source).toMatchObject({ outcome: 'success' });
    const sourceEvents = await stack.runEvents(source.run_id);
    const sourceCreated = sourceEvents.find((e) => e.type === 'RunCreated')!.data as { requested_by?: string; policy_versions: unknown };
    expect(sourceCreated.policy_versions).toEqual(allowAll);

    // A new lanes version in which MAPPING_AGENT may no longer append coa_map.
    const denyCoa = { lanes: `lanes-fork-${tag}-b`, roles: oldVersions.roles };
    const withoutCoa = shipped.replace(/\n\s+- append:coa_map/, '');
    expect(withoutCoa).not.toContain('append:coa_map');
    await rollOut(denyCoa.lanes, withoutCoa);

    // The operator forks the run after its interview step under the current (new) version, from the CLI, and waits.
    const cli = (...args: string[]) => runCli(stack.url, args, stack.cliEnv('operator'));
    const forked = await cli('runs', 'fork', source.run_id, '--from', 'interview', '--request-id', `op-${tag}`, '--wait', '--json');
    expect(forked).toMatchObject({ code: 0 });
    const fork = JSON.parse(forked.stdout) as RunForkResult;
    expect(fork).toMatchObject({ outcome: 'forked', status: 'failed', forked_from: { run_id: source.run_id, checkpoint: 'interview' }, policy_versions: denyCoa, error: { error_code: 'POLICY_DENIED' } });

    // The fork records where it comes from, its new pin, and the source's case and caller.
    const forkTree = await runTree(stack, fork.run_id);
    const forkRun = forkTree.find((r) => r.run_id === fork.run_id)!;
    expect(forkRun.created).toMatchObject({ agent_name: 'ORCHESTRATOR', case_id: caseId, root_run_id: fork.run_id, policy_versions: denyCoa, forked_from: { run_id: source.run_id, checkpoint: 'interview', request_id: `op-${tag}` } });
    expect((forkRun.created as { requested_by?: string }).requested_by).toBe(sourceCreated.requested_by);
    expect(forkRun.created.parent_run_id).toBeUndefined();
    // intake and interview were restored from the source's log, not re-executed: the fork started only a MAPPING child,
    // recorded no StepCompleted of its own for them, and the case has still exactly one transcription (the source's).
    expect(eventsOf<{ agent_name: string }>(forkRun, 'ChildRunStarted').map((c) => c.agent_name)).toEqual(['MAPPING_AGENT']);
    expect(eventsOf<{ step_id: string }>(forkRun, 'StepCompleted')).toEqual([]); // mapping, its first own step, was denied
    const { state: transcriptions } = await stack.log.replay<number>((n, e) => (e.type === 'RunCreated' && (e.data as { case_id?: string; run_kind?: string; parameters?: { tool_name?: string } }).case_id === caseId
      && (e.data as { run_kind?: string }).run_kind === 'tool_gateway' && (e.data as { parameters?: { tool_name?: string } }).parameters?.tool_name === 'transcription.run' ? n + 1 : n), 0, { filter: 'rl.log.run.>' });
    expect(transcriptions).toBe(1);
    // The new policy decided the fork's mapping: its coa_map write was denied at db-write under the new pin.
    const mapping = forkTree.find((r) => r.created.agent_name === 'MAPPING_AGENT' && r.created.run_kind === 'agent')!;
    expect(mapping.created.policy_versions).toEqual(denyCoa);
    const coa = childrenOf(forkTree, mapping.run_id, 'db_write').find((w) => w.created.parameters.collection === 'coa_map')!;
    expect(coa.authz).toMatchObject({ decision: 'deny', code: 'LANE.ACTION_DENIED', policy_versions: denyCoa });
    // The source is unchanged.
    expect((await stack.runEvents(source.run_id)).map((e) => e.metadata.event_id)).toEqual(sourceEvents.map((e) => e.metadata.event_id));

    // runs show names the origin.
    const shown = await cli('runs', 'show', fork.run_id);
    expect(shown.stdout).toContain(`forked from run ${source.run_id} at step interview`);

    // Over the bus, as the operator: the same request_id forks once (the recorded fork answers), others are refused by code.
    const operator = await stack.connectAs('operator');
    const caller = await stack.connectAs('caller');
    try {
      const ask = async (nc: NatsConnection, body: unknown) => {
        const m = await nc.request('rl.runs.fork', encodeJson(body), { timeout: 20_000 });
        return decodeReply(m.data, m.headers);
      };
      const again = await ask(operator, { run_id: source.run_id, from_step: 'interview', request_id: `op-${tag}` });
      expect(again).toMatchObject({ ok: true, body: { outcome: 'existing', run_id: fork.run_id, status: 'failed' } });
      const forksOfSource = (await stack.log.replay<number>((n, e) => (e.type === 'RunCreated' && (e.data as { forked_from?: { run_id: string } }).forked_from?.run_id === source.run_id ? n + 1 : n), 0, { filter: 'rl.log.run.>' })).state;
      expect(forksOfSource).toBe(1);
      const refused = async (body: Record<string, unknown>) => ((await ask(operator, { run_id: source.run_id, from_step: 'interview', request_id: `op-${randomUUID()}`, ...body })) as { error?: { code: string } }).error?.code;
      expect(await refused({ run_id: randomUUID() })).toBe('FORK.RUN_NOT_FOUND');
      expect(await refused({ from_step: 'persist' })).toBe('FORK.CHECKPOINT_NOT_IN_RUN');
      expect(await refused({ run_id: childRunId('agent', source.run_id, 'interview') })).toBe('FORK.NOT_FORKABLE');
      expect(await refused({ policy_versions: { lanes: 'lanes-never-published', roles: oldVersions.roles } })).toBe('FORK.POLICY_UNKNOWN');
      expect(await refused({ request_id: `op-${tag}`, from_step: 'intake' })).toBe('FORK.REQUEST_CONFLICT');
      expect(await refused({ from_step: undefined })).toBe('REQUEST.INVALID');
      // A caller identity may not fork (operators only): the server refuses to route the request.
      await expect(caller.request('rl.runs.fork', encodeJson({ run_id: source.run_id, from_step: 'interview', request_id: `caller-${tag}` }), { timeout: 10_000 })).rejects.toThrow(/Permissions Violation/);
    } finally {
      await Promise.all([operator.close(), caller.close()]);
    }
  });
});
