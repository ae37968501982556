import { randomUUID } from 'node:crypto';
import type { AgentRunResponse, ArtifactRef, DbResult, ToolInvocationResult } from '@runledger/contracts';
import { CoverageReport, requestHashSha256, responseHashSha256, sha256Hex } from '@runledger/governance';
import { childRunId } from '@runledger/runs';
import {
  approvedTicket, childrenOf, recordedCaller, eventsOf, logEventsContaining, policyVersionsIn, putArtifact, putTicket, readArtifactJson, runTree, runView, RunView, SHIPPED_POLICY_DIR, startRun, uploadCase, uploader,
} from './support/governed-runs';
import { TestStack } from './support/stack';

jest.setTimeout(180_000);

const versions = policyVersionsIn(SHIPPED_POLICY_DIR);
const kinds = (refs: ArtifactRef[]) => refs.map((r) => r.kind).sort();

describe('Governed agent runs (contract 001) over real NATS', () => {
  let stack: TestStack;
  const caseA = `case-${randomUUID().slice(0, 8)}`;
  const correlation_id = `corr-${randomUUID().slice(0, 8)}`;
  let inputs: Awaited<ReturnType<typeof uploadCase>>;
  let workflow: AgentRunResponse;
  let tree: RunView[];
  const agentRun = (agent: string) => tree.find((r) => r.created.run_kind === 'agent' && r.created.agent_name === agent)!;

  beforeAll(async () => {
    stack = await TestStack.shared();
    inputs = await uploadCase(stack, caseA, versions);
    // One whole case workflow, shared by the tests below: ORCHESTRATOR → INTAKE → INTERVIEW → MAPPING → EXPORT.
    workflow = await startRun(stack, {
      agent_name: 'ORCHESTRATOR', case_id: caseA, correlation_id,
      input_artifacts: [inputs.form, inputs.recording, inputs.document],
      parameters: { client_session_id: 'session-1', coa_version: 'coa-2026.1', export: true },
    });
    tree = await runTree(stack, workflow.run_id);
  });
  afterAll(async () => stack?.stop());

  it('§4.1 ORCHESTRATOR starts correlated child runs', async () => {
    expect(workflow).toMatchObject({ outcome: 'success', agent_name: 'ORCHESTRATOR', error: null });
    expect(kinds(workflow.output_artifacts)).toEqual(['workflow_summary']);
    const orchestrator = await runView(stack, workflow.run_id);
    const started = eventsOf<{ child_run_id: string; run_kind: string; agent_name: string }>(orchestrator, 'ChildRunStarted');
    expect(started.map((c) => c.agent_name)).toEqual(['INTAKE_AGENT', 'INTERVIEW_AGENT', 'MAPPING_AGENT', 'EXPORT_AGENT']);
    expect(started.every((c) => c.run_kind === 'agent')).toBe(true);
    expect(workflow.child_run_ids).toEqual(started.map((c) => c.child_run_id));
    // The orchestrator itself calls no tool and writes nothing: its only children are agent runs.
    expect(childrenOf(tree, workflow.run_id).map((r) => r.created.run_kind)).toEqual(['agent', 'agent', 'agent', 'agent']);
    for (const child of started) {
      const run = tree.find((r) => r.run_id === child.child_run_id)!;
      expect(run.created).toMatchObject({ run_kind: 'agent', agent_name: child.agent_name, parent_run_id: workflow.run_id, root_run_id: workflow.run_id, correlation_id });
      expect(run.types[run.types.length - 1]).toBe('RunCompleted');
    }
    // Every descendant (tool_gateway, db_write, export child runs included) carries the root and the correlation.
    expect(tree.length).toBeGreaterThan(15);
    for (const run of tree) {
      expect(run.created).toMatchObject({ root_run_id: workflow.run_id, correlation_id });
      expect(run.events.every((e) => e.metadata.root_run_id === workflow.run_id && e.metadata.correlation_id === correlation_id)).toBe(true);
    }
    const summary = await readArtifactJson<{ child_run_ids: string[] }>(stack, workflow.output_artifacts[0], await uploader(stack, caseA, versions));
    expect(summary.child_run_ids).toEqual(workflow.child_run_ids);
    // Each step is checkpointed once, in profile order.
    expect(eventsOf<{ step_id: string }>(orchestrator, 'StepCompleted').map((s) => s.step_id)).toEqual(['intake', 'interview', 'mapping', 'export', 'summary']);
  });

  it('§7.1 INTERVIEW_AGENT can capture transcription via tool_gateway with lane enforcement and audit logs', async () => {
    const interview = agentRun('INTERVIEW_AGENT');
    const tools = childrenOf(tree, interview.run_id, 'tool_gateway');
    // prompt and transcribe form a parallel group (INV-PE-001): either may be called first.
    expect(tools.map((t) => t.created.parameters.tool_name).sort()).toEqual(['interview.prompt.next', 'transcription.run', 'transcription.status']);
    for (const t of tools) {
      expect(t.created).toMatchObject({ agent_name: 'INTERVIEW_AGENT', lane: 'TOOL_INTERVIEW_CAPTURE', policy_versions: versions });
      expect(t.types).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'EffectClaimed', 'ToolCallAudited', 'RunCompleted']);
      expect(t.authz).toMatchObject({ decision: 'allow', lane: 'TOOL_INTERVIEW_CAPTURE', policy_versions: versions });
    }
    // The agent run records each call before and after it, linked to its tool_gateway child run.
    const recorded = eventsOf<{ call_id: string; child_run_id: string; status: string }>(interview, 'ToolCallRecorded');
    expect(recorded.map((r) => [r.call_id, r.status]).sort()).toEqual([['prompt', 'ok'], ['status', 'ok'], ['transcribe', 'ok']]);
    expect(recorded.map((r) => r.child_run_id).sort()).toEqual(tools.map((t) => t.run_id).sort());
    // The transcript: normalised speaker turns with timestamps.
    const transcriptRef = (await runView(stack, interview.run_id)).events.find((e) => e.type === 'RunCompleted')!.data as { output_artifacts: ArtifactRef[] };
    const transcript = await readArtifactJson<{ segments: Array<{ speaker: string; start_ms: number; end_ms: number }> }>(stack, transcriptRef.output_artifacts.find((a) => a.kind === 'transcript')!, await uploader(stack, caseA, versions));
    expect(transcript.segments.map((s) => s.speaker)).toEqual(['interviewer', 'client', 'interviewer', 'client']);
    expect(transcript.segments.every((s, i) => s.end_ms > s.start_ms && (i === 0 || s.start_ms > transcript.segments[i - 1].end_ms))).toBe(true);

    // Lane enforcement: MAPPING_AGENT may not transcribe, and INTERVIEW_AGENT may not call a tool its lane lacks.
    const mapping = agentRun('MAPPING_AGENT');
    const invoke = (agent_name: string, parent_run_id: string, tool_name: string, call_id: string) =>
      stack.request<ToolInvocationResult>('rl.tool.invoke', {
        call_id, tool_name, parameters: { case_id: caseA, client_session_id: 'session-1', text: 'Client: hello there' },
        governance: { parent_run_id, root_run_id: workflow.run_id, agent_name, lane: 'TOOL_INTERVIEW_CAPTURE', case_id: caseA, policy_versions: versions },
      });
    const denied = await invoke('MAPPING_AGENT', mapping.run_id, 'transcription.run', 'sneaky-transcribe');
    expect(denied.body).toMatchObject({ status: 'denied', error: { error_code: 'LANE.CALLER_DENIED' } });
    const deniedRun = await runView(stack, denied.body.child_run_id);
    expect(deniedRun.types).toEqual(['RunCreated', 'AuthzDecided', 'RunDenied']);
    expect(deniedRun.authz).toMatchObject({ decision: 'deny', code: 'LANE.CALLER_DENIED', policy_versions: versions });
    const outOfLane = await invoke('INTERVIEW_AGENT', interview.run_id, 'add_task', 'sneaky-task');
    expect(outOfLane.body).toMatchObject({ status: 'denied', error: { error_code: 'LANE.ACTION_DENIED' } });

    // The audit ledger holds the decisions and the tool-call audit events of the tree.
    const audited = await stack.waitFor(async () => {
      const r = await stack.request<{ events: Array<{ run_id: string; type: string }> }>('rl.audit.query', { root_run_id: workflow.run_id, limit: 1000 });
      const ofTools = (r.body.events ?? []).filter((e) => tools.some((t) => t.run_id === e.run_id));
      return ofTools.filter((e) => e.type === 'ToolCallAudited').length === tools.length ? ofTools : undefined;
    }, 20_000);
    expect(audited.filter((e) => e.type === 'AuthzDecided')).toHaveLength(tools.length);
  });

  it('§7.2 INTERVIEW_AGENT can persist transcripts via db_write with lane enforcement and audit logs', async () => {
    const interview = agentRun('INTERVIEW_AGENT');
    const writes = childrenOf(tree, interview.run_id, 'db_write');
    expect(writes.map((w) => `${w.created.parameters.operation}:${w.created.parameters.collection}`)).toEqual(
      expect.arrayContaining(['append:transcripts', 'append:interview_notes', 'upsert:entities']),
    );
    for (const w of writes) {
      expect(w.types).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'DbWriteAudited', 'RunCompleted']);
      expect(w.created).toMatchObject({ agent_name: 'INTERVIEW_AGENT', lane: 'WRITE_INTAKE_ARTIFACTS', parent_run_id: interview.run_id });
      expect(w.authz).toMatchObject({ decision: 'allow', policy_versions: versions });
      expect(eventsOf<{ case_id: string }>(w, 'DbWriteAudited')[0].case_id).toBe(caseA);
    }
    // INTAKE_AGENT persists its entities under the same lane.
    const intakeWrites = childrenOf(tree, agentRun('INTAKE_AGENT').run_id, 'db_write');
    expect(intakeWrites.map((w) => w.created.parameters.collection)).toEqual(['entities', 'entities']);
    expect(intakeWrites.every((w) => w.types.includes('DbWriteAudited'))).toBe(true);

    // Lane enforcement at db-write: transcripts are not a mapping output, facts are not an intake artifact.
    const write = (agent_name: string, lane: string, collection: string, scope?: Record<string, string>) =>
      stack.request<DbResult>('rl.db.write', {
        write_id: `sneaky-${collection}-${lane}`, collection, operation: 'append', document: { case_id: caseA, text: 'x' },
        governance: { parent_run_id: interview.run_id, root_run_id: workflow.run_id, agent_name, lane, case_id: caseA, ...(scope ? { scope } : {}), policy_versions: versions },
      });
    const wrongLane = await write('INTERVIEW_AGENT', 'WRITE_MAPPING_OUTPUTS', 'facts', { coa_version: 'coa-2026.1' });
    expect(wrongLane.body).toMatchObject({ status: 'denied', error: { error_code: 'LANE.CALLER_DENIED' } });
    const wrongAction = await write('INTERVIEW_AGENT', 'WRITE_INTAKE_ARTIFACTS', 'facts');
    expect(wrongAction.body).toMatchObject({ status: 'denied', error: { error_code: 'LANE.ACTION_DENIED' } });
    const deniedRun = await runView(stack, wrongAction.body.child_run_id!);
    expect(deniedRun.types).toEqual(['RunCreated', 'AuthzDecided', 'RunDenied']);
    expect(deniedRun.authz).toMatchObject({ decision: 'deny', code: 'LANE.ACTION_DENIED', action: 'append:facts' });
  });

  it('§7.3 MAPPING_AGENT can write facts/evidence_map/coa_map via db_write with lane enforcement and audit logs', async () => {
    const mapping = agentRun('MAPPING_AGENT');
    expect(mapping.created.parameters).toEqual({ coa_version: 'coa-2026.1' });
    const writes = childrenOf(tree, mapping.run_id, 'db_write');
    expect(writes.map((w) => `${w.created.parameters.operation}:${w.created.parameters.collection}`)).toEqual(['append:facts', 'append:evidence_map', 'append:coa_map']);
    for (const w of writes) {
      expect(w.types).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'DbWriteAudited', 'RunCompleted']);
      expect(w.authz).toMatchObject({ decision: 'allow', lane: 'WRITE_MAPPING_OUTPUTS', policy_versions: versions });
    }
    const completed = eventsOf<{ output_artifacts: ArtifactRef[]; result: { supported_coas: string[] } }>(mapping, 'RunCompleted')[0];
    expect(kinds(completed.output_artifacts)).toEqual(['coa_map', 'evidence_map', 'facts', 'mapping_summary']);
    expect(completed.result.supported_coas).toEqual(expect.arrayContaining(['BREACH_OF_CONTRACT', 'WRONGFUL_TERMINATION']));
    const coaMap = await readArtifactJson<{ coa_version: string; coa_map: Array<{ coa_id: string; fact_ids: string[] }> }>(stack, completed.output_artifacts.find((a) => a.kind === 'coa_map')!, await uploader(stack, caseA, versions));
    expect(coaMap.coa_version).toBe('coa-2026.1');
    // The interviewer's questions are not facts; the client's statements are.
    const facts = await readArtifactJson<{ facts: Array<{ text: string }> }>(stack, completed.output_artifacts.find((a) => a.kind === 'facts')!, await uploader(stack, caseA, versions));
    expect(facts.facts.some((f) => /fired me two days after/.test(f.text))).toBe(true);
    expect(facts.facts.some((f) => /what happened/i.test(f.text))).toBe(false);

    // Lane enforcement: the COA version is a required scope, and only MAPPING_AGENT writes maps.
    // Each caller acts for its own agent run, so the lane (not a mismatched claim) is what refuses it.
    const write = (agent_name: string, scope?: Record<string, string>) =>
      stack.request<DbResult>('rl.db.write', {
        write_id: `sneaky-coa-${agent_name}-${scope ? 'scoped' : 'bare'}`, collection: 'coa_map', operation: 'append', document: { case_id: caseA },
        governance: { parent_run_id: agentRun(agent_name).run_id, root_run_id: workflow.run_id, agent_name, lane: 'WRITE_MAPPING_OUTPUTS', case_id: caseA, ...(scope ? { scope } : {}), policy_versions: versions },
      });
    expect((await write('MAPPING_AGENT')).body).toMatchObject({ status: 'denied', error: { error_code: 'SCOPE.MISSING' } });
    expect((await write('INTAKE_AGENT', { coa_version: 'coa-2026.1' })).body).toMatchObject({ status: 'denied', error: { error_code: 'LANE.CALLER_DENIED' } });
  });

  it('§7.5 EXPORT_AGENT bundles the case with manifest, hashes and export audit events', async () => {
    const exportAgent = agentRun('EXPORT_AGENT');
    const completed = eventsOf<{ output_artifacts: ArtifactRef[]; result: { bundle_sha256: string } }>(exportAgent, 'RunCompleted')[0];
    expect(kinds(completed.output_artifacts)).toEqual(['export_bundle', 'export_manifest', 'export_receipt']);
    expect(completed.output_artifacts.find((a) => a.kind === 'export_bundle')!.sha256).toBe(completed.result.bundle_sha256);
    const [exportRun] = childrenOf(tree, exportAgent.run_id, 'export');
    expect(exportRun.types).toEqual(expect.arrayContaining(['ExportAuthorized', 'ExportAssembled', 'ExportFinalized', 'RunCompleted']));
    expect(exportRun.authz).toMatchObject({ decision: 'allow', policy_versions: versions });
  });

  it('§1 every run pins contract_version v1 and policy versions', async () => {
    const agents = tree.filter((r) => r.created.run_kind === 'agent');
    expect(agents).toHaveLength(5);
    for (const run of tree) expect(run.created).toMatchObject({ contract_version: 'v1', policy_versions: versions });
    for (const run of agents) {
      // authz_decision at run start, then the run; a terminal event at the end.
      expect(run.types.slice(0, 3)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted']);
      expect(run.authz).toMatchObject({ decision: 'allow', action: 'agent.run.start', policy_versions: versions });
      expect(run.types[run.types.length - 1]).toBe('RunCompleted');
    }
    // An unknown agent is a run too: denied at start, with the versions that denied it.
    const unknown = await startRun(stack, { agent_name: 'NOPE_AGENT', case_id: caseA, input_artifacts: [], parameters: {} });
    expect(unknown).toMatchObject({ outcome: 'deny', output_artifacts: [], error: { error_code: 'AGENT.UNKNOWN', retryable: false } });
    const denied = await runView(stack, unknown.run_id);
    expect(denied.types).toEqual(['RunCreated', 'AuthzDecided', 'RunDenied']);
    expect(denied.created).toMatchObject({ contract_version: 'v1', policy_versions: versions });
    expect(denied.authz).toMatchObject({ decision: 'deny', code: 'AGENT.UNKNOWN' });
  });

  it('§6 audit coverage: every run of a whole case workflow is covered', async () => {
    const ids = new Set(tree.map((r) => r.run_id));
    const report = await stack.waitFor(async () => {
      const r = await stack.request<CoverageReport>('rl.audit.coverage', {});
      return r.body.in_progress.some((id) => ids.has(id)) ? undefined : r.body;
    }, 20_000);
    expect(report.runs_checked).toBeGreaterThanOrEqual(ids.size);
    expect(report.violations.filter((v) => ids.has(v.run_id))).toEqual([]);
    // Every kind of child run took part, so every kind's required audit event was checked.
    expect(new Set(tree.map((r) => r.created.run_kind))).toEqual(new Set(['agent', 'tool_gateway', 'db_write', 'export']));
  });

  it('Case isolation: cross-case write denied', async () => {
    const caseB = `case-${randomUUID().slice(0, 8)}`;
    const intake = agentRun('INTAKE_AGENT');
    // A write from a case-A run naming case B is refused at db-write, and recorded as a denied db_write run.
    const cross = await stack.request<DbResult>('rl.db.write', {
      write_id: 'cross-case', collection: 'entities', operation: 'upsert', document_id: 'entity-x', document: { case_id: caseB, name: 'Someone' },
      governance: { parent_run_id: intake.run_id, root_run_id: workflow.run_id, agent_name: 'INTAKE_AGENT', lane: 'WRITE_INTAKE_ARTIFACTS', case_id: caseA, policy_versions: versions },
    });
    expect(cross.body).toMatchObject({ status: 'denied', error: { error_code: 'CASE.CROSS_CASE_DENIED' } });
    expect((await runView(stack, cross.body.child_run_id!)).types).toEqual(['RunCreated', 'AuthzDecided', 'RunDenied']);
    // An agent run of case B handed case A's artifacts is denied at start: nothing of A is read or written.
    const run = await startRun(stack, { agent_name: 'INTAKE_AGENT', case_id: caseB, input_artifacts: [inputs.form], parameters: {} });
    expect(run).toMatchObject({ outcome: 'deny', error: { error_code: 'CASE.CROSS_CASE_DENIED' } });
    expect((await runView(stack, run.run_id)).types).toEqual(['RunCreated', 'AuthzDecided', 'RunDenied']);
    expect(await runTree(stack, run.run_id)).toHaveLength(1);
  });

  it('§2 request_hash_sha256 is stable across key order and volatile timestamps', async () => {
    const base = { agent_name: 'INTAKE_AGENT', case_id: caseA, input_artifacts: [inputs.form], parameters: { channel: 'web', requested_at: '2026-11-22T10:00:00Z', nested: { a: 1, b: 2 } } };
    const first = await startRun(stack, base);
    expect(first.outcome).toBe('success');
    // Same request: keys in another order, a different volatile timestamp, the hash supplied by the caller.
    const expectedHash = requestHashSha256({ ...base, policy_versions: versions });
    const again = await startRun(stack, {
      parameters: { nested: { b: 2, a: 1 }, requested_at: '2031-01-01T00:00:00Z', channel: 'web' }, input_artifacts: [inputs.form], case_id: caseA, agent_name: 'INTAKE_AGENT',
      request_hash_sha256: expectedHash,
    });
    expect(again).toEqual(first);
    const created = (await runView(stack, first.run_id)).created as unknown as { request_hash_sha256: string };
    expect(created.request_hash_sha256).toBe(expectedHash);
    expect((await stack.runEvents(first.run_id)).filter((e) => e.type === 'RunCreated')).toHaveLength(1);
    // §2.2: the response hash is the normalised hash of the recorded payload.
    const completed = eventsOf<{ output_artifacts: ArtifactRef[]; result: Record<string, unknown> }>(await runView(stack, first.run_id), 'RunCompleted')[0];
    expect(first.response_hash_sha256).toBe(responseHashSha256({ agent_name: 'INTAKE_AGENT', output_artifacts: completed.output_artifacts, result: completed.result }));
    // A hash that is not ours is INVALID_INPUT, and no run is recorded for it.
    const wrong = await startRun(stack, { ...base, parameters: { channel: 'phone' }, request_hash_sha256: expectedHash });
    expect(wrong).toMatchObject({ outcome: 'failure', error: { error_code: 'INVALID_INPUT', retryable: false } });
    expect(await stack.runEvents(wrong.run_id)).toEqual([]);
    const malformed = await startRun(stack, { agent_name: 'INTAKE_AGENT', input_artifacts: [], parameters: {} });
    expect(malformed).toMatchObject({ outcome: 'failure', error: { error_code: 'INVALID_INPUT' } });
  });

  it('INV-DT-002: an agent delegating to itself or an ancestor gets an error outcome', async () => {
    // Open runs (a finished run parents nothing new, Issue 9): an ORCHESTRATOR and its INTAKE_AGENT child.
    const orchestrator = await recordedCaller(stack, 'ORCHESTRATOR', 'NONE', caseA, versions);
    const intake = { run_id: (await recordedCaller(stack, 'INTAKE_AGENT', 'WRITE_INTAKE_ARTIFACTS', caseA, versions, orchestrator)).parent_run_id };
    const self = await startRun(stack, { agent_name: 'INTAKE_AGENT', case_id: caseA, parent_run_id: intake.run_id, input_artifacts: [inputs.form], parameters: {} });
    expect(self).toMatchObject({ outcome: 'failure', error: { error_code: 'DELEGATION.CIRCULAR', retryable: false } });
    const ancestor = await startRun(stack, { agent_name: 'ORCHESTRATOR', case_id: caseA, parent_run_id: intake.run_id, input_artifacts: [], parameters: {} });
    expect(ancestor).toMatchObject({ outcome: 'failure', error: { error_code: 'DELEGATION.CIRCULAR' } });
    const run = await runView(stack, ancestor.run_id);
    expect(run.created).toMatchObject({ parent_run_id: intake.run_id, root_run_id: orchestrator.root_run_id });
    expect(run.types).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'RunFailed']);
  });

  it('One durable decision inbox carries both task-assistant turns and governed agent runs', async () => {
    const reply = await stack.request<{ run_id: string; response_text: string }>('agents.task-assistant.process', { user_id: `u-${caseA}`, conversation_id: randomUUID(), message: 'add task call the client' });
    expect(reply.body.response_text).toBe("I've added 'call the client' to your tasks.");
    const taskRun = await runView(stack, reply.body.run_id);
    expect(taskRun.created.agent_name).toBe('TASK_ASSISTANT');
    expect(taskRun.types[taskRun.types.length - 1]).toBe('RunCompleted');
    const inbox = (await stack.log.read('rl.log.inbox.decision')).map((e) => e.type);
    // Both kinds (on the shared stack other suites' requests pass the same inbox: sessions' too).
    expect(inbox).toEqual(expect.arrayContaining(['AgentRunRequested', 'AgentRequested']));
  });

  it('§7.4 GOVERNANCE_AGENT promotes a sanitised insight and is refused raw case text (8+ words copied from a case document its facts reference)', async () => {
    const g = await uploader(stack, caseA, versions);
    // No source artifact is named: the promotion service finds the case's text through its transcripts, notes and facts records.
    // Tickets are single use: each promotion has its own approval.
    const promote = async (text: string) => {
      const ticket = await putTicket(stack, caseA, approvedTicket(caseA));
      const candidate = await putArtifact(stack, g, 'candidate_insights', { title: 'Retaliation after wage complaints', text });
      return startRun(stack, { agent_name: 'GOVERNANCE_AGENT', case_id: caseA, input_artifacts: [ticket, candidate], parameters: {} });
    };
    const clean = await promote('When a termination closely follows a wage complaint, collect the timeline of complaint and dismissal early and preserve written messages from the manager.');
    expect(clean).toMatchObject({ outcome: 'success', error: null });
    expect(clean.output_artifacts.length).toBeGreaterThan(0);
    const promotion = childrenOf(await runTree(stack, clean.run_id), clean.run_id, 'promotion');
    expect(promotion).toHaveLength(1);
    expect(promotion[0].types).toEqual(expect.arrayContaining(['PromotionAudited', 'RunCompleted']));

    // Its only problem: twelve words copied from the case's employment agreement (no name, email, phone or marker),
    // which no caller names: the case's facts cite it as their source.
    const raw = await promote('A useful check for wage claims: overtime is paid at one and a half times the hourly rate in most contracts.');
    expect(raw).toMatchObject({ outcome: 'deny', error: { error_code: 'PROMOTION.REFUSED' } });
    expect(raw.error!.message).toContain('(raw_case_text)');
    const [refusedRun] = childrenOf(await runTree(stack, raw.run_id), raw.run_id, 'promotion');
    const [refused] = eventsOf<{ rules: string[]; findings: Array<{ rule: string; evidence: string }> }>(refusedRun, 'PromotionRefused');
    expect(refused.rules).toEqual(['raw_case_text']);
    expect(refused.findings.map((f) => f.rule)).toEqual(['raw_case_text']);
    expect(refused.findings[0].evidence).toMatch(/^text: verbatim run of 12 words/);
    // The screen read the document although no caller named it.
    expect((refusedRun.events[0].data as { input_artifacts: ArtifactRef[] }).input_artifacts.map((a) => a.artifact_id)).toContain(inputs.document.artifact_id);
  });

  it('001 §4.5 promotion requires an approved ticket: a ticket the approver put in unapproved ends the run deny with PROMOTION.TICKET_NOT_APPROVED, its promotion run recorded as AuthzDecided deny + RunDenied with that code, nothing promoted', async () => {
    const run = await startRun(stack, { agent_name: 'GOVERNANCE_AGENT', case_id: caseA, input_artifacts: [await putTicket(stack, caseA, approvedTicket(caseA, { approved: false })), await putArtifact(stack, await uploader(stack, caseA, versions), 'candidate_insights', { title: 'Unapproved insight', text: 'Keep a dated log of every complaint made to a manager.' })], parameters: {} });
    const [[promotion], agent] = [childrenOf(await runTree(stack, run.run_id), run.run_id, 'promotion'), await runView(stack, run.run_id)];
    expect([promotion.types, promotion.authz, eventsOf(promotion, 'RunDenied')]).toMatchObject([['RunCreated', 'AuthzDecided', 'RunDenied'], { decision: 'deny', code: 'PROMOTION.TICKET_NOT_APPROVED', lane: 'PROMOTE_SHARED_KNOWLEDGE' }, [{ error: { error_code: 'PROMOTION.TICKET_NOT_APPROVED' } }]]);
    expect([run, agent.types.at(-1), eventsOf(agent, 'RunFailed')]).toMatchObject([{ outcome: 'deny', output_artifacts: [], error: { error_code: 'PROMOTION.TICKET_NOT_APPROVED', retryable: false, message: expect.stringContaining(promotion.run_id) } }, 'RunFailed', [{ error: { error_code: 'PROMOTION.TICKET_NOT_APPROVED' } }]]);
  });

  it('§4.5 a refused candidate and the client identifiers never enter the log: the governance run records references and a digest only', async () => {
    const caseG = `case-${randomUUID().slice(0, 8)}`;
    const g = await uploader(stack, caseG, versions);
    const identifier = 'Ottoline Quaresma-Vantongeren';
    const candidate = { title: `Leak probe ${caseG}`, text: `Clients such as ${identifier} should keep every wage slip before a dispute starts.` };
    const ticket = await putTicket(stack, caseG, approvedTicket(caseG));
    const candidateRef = await putArtifact(stack, g, 'candidate_insights', candidate);
    const identifiers = await putArtifact(stack, g, 'client_identifiers', { client_identifiers: [identifier] });
    const refused = await startRun(stack, { agent_name: 'GOVERNANCE_AGENT', case_id: caseG, input_artifacts: [ticket, candidateRef, identifiers], parameters: {} });
    expect(refused).toMatchObject({ outcome: 'deny', error: { error_code: 'PROMOTION.REFUSED' } });
    expect(refused.error!.message).toContain('client_identity');

    // The whole log, every subject: neither the candidate nor the identifier, in any event of any run or stream.
    expect(await logEventsContaining(stack, [candidate.text, candidate.title, 'Ottoline', 'Quaresma'])).toEqual([]);
    const run = await runView(stack, refused.run_id);
    expect(run.created.parameters).toEqual({});
    const [read] = eventsOf<{ step_id: string; output: Record<string, unknown> }>(run, 'StepCompleted');
    expect(read.output).toMatchObject({ candidate_ref: { artifact_id: candidateRef.artifact_id }, candidate_sha256: sha256Hex(`${candidate.title}\n${candidate.text}`), identifiers_ref: { artifact_id: identifiers.artifact_id } });

    // Identifiers in parameters would be recorded in RunCreated: refused before the request becomes a run.
    const inParameters = await startRun(stack, { agent_name: 'GOVERNANCE_AGENT', case_id: caseG, input_artifacts: [ticket, candidateRef], parameters: { client_identifiers: ['Someone Else'] } });
    expect(inParameters).toMatchObject({ outcome: 'failure', error: { error_code: 'INVALID_INPUT' } });
    expect(await stack.runEvents(inParameters.run_id)).toEqual([]);
    expect(await logEventsContaining(stack, ['Someone Else'])).toEqual([]);
  });

  it('§4.3 INTERVIEW_AGENT transcribes only the recording its reference names: a sha256 that is not the stored artifact\'s is refused ARTIFACT.HASH_MISMATCH before the run starts', async () => {
    const forged = { ...inputs.recording, sha256: sha256Hex('Client: a different recording') };
    const run = await startRun(stack, { agent_name: 'INTERVIEW_AGENT', case_id: caseA, input_artifacts: [forged], parameters: { client_session_id: 'session-forged' } });
    expect(run).toMatchObject({ outcome: 'failure', error: { error_code: 'ARTIFACT.HASH_MISMATCH', retryable: false } });
    // Refused at the door: no run, so nothing was transcribed or written.
    expect(await stack.runEvents(run.run_id)).toEqual([]);
  });

  it('§4.3 an audio recording on a deployment with no transcription server fails TRANSCRIPTION.NOT_CONFIGURED, not retryable, after one attempt', async () => {
    const audio = await putArtifact(stack, await uploader(stack, caseA, versions), 'interview_recording', 'RIFF$\u0000\u0000\u0000WAVEfmt ', 'audio/wav');
    const run = await startRun(stack, { agent_name: 'INTERVIEW_AGENT', case_id: caseA, input_artifacts: [audio], parameters: { client_session_id: 'session-audio' } });
    expect(run).toMatchObject({ outcome: 'failure', error: { error_code: 'TRANSCRIPTION.NOT_CONFIGURED', retryable: false } });
    expect(run.error!.message).toContain('Audio transcription is not configured');
    expect(run.error!.message).not.toContain('TRANSCRIPTION_BASE_URL');
    // Asked once: a missing setting is not tried again.
    const calls = eventsOf<{ call_id: string }>(await runView(stack, run.run_id), 'ToolCallRequested').map((c) => c.call_id);
    expect(calls.filter((id) => id.startsWith('transcribe'))).toEqual(['transcribe']);
  });

  it('§4.3 a recording that is not what its media type says fails ARTIFACT.UNREADABLE, not retryable, after one attempt, in our words', async () => {
    const broken = await putArtifact(stack, await uploader(stack, caseA, versions), 'interview_recording', '{"utterances": [{"speaker": "a", "text": ', 'application/json');
    const run = await startRun(stack, { agent_name: 'INTERVIEW_AGENT', case_id: caseA, input_artifacts: [broken], parameters: { client_session_id: 'session-broken-json' } });
    expect(run).toMatchObject({ outcome: 'failure', error: { error_code: 'ARTIFACT.UNREADABLE', retryable: false } });
    expect(run.error!.message).toContain('The recording cannot be read');
    expect(run.error!.message).not.toMatch(/Unexpected|position|JSON at/);
    const calls = eventsOf<{ call_id: string }>(await runView(stack, run.run_id), 'ToolCallRequested').map((c) => c.call_id);
    expect(calls.filter((id) => id.startsWith('transcribe'))).toEqual(['transcribe']);
  });

  it('INV-DT: a run planted at a child run id is never adopted: the parent fails DELEGATION.CHILD_CONFLICT', async () => {
    const orchestratorId = randomUUID();
    const plantedId = childRunId('agent', orchestratorId, 'intake');
    const planted = await startRun(stack, { agent_name: 'INTAKE_AGENT', case_id: caseA, run_id: plantedId, input_artifacts: [inputs.form], parameters: { planted: true } });
    expect(planted.outcome).toBe('success');
    const run = await startRun(stack, {
      agent_name: 'ORCHESTRATOR', case_id: caseA, run_id: orchestratorId, input_artifacts: [inputs.form, inputs.recording, inputs.document], parameters: { client_session_id: 'session-2' },
    });
    expect(run).toMatchObject({ outcome: 'failure', error: { error_code: 'DELEGATION.CHILD_CONFLICT', retryable: false } });
    const orchestrator = await runView(stack, orchestratorId);
    expect(eventsOf(orchestrator, 'ChildRunStarted')).toEqual([]);
    expect(eventsOf(orchestrator, 'StepCompleted')).toEqual([]);
    expect((await runView(stack, plantedId)).created.parent_run_id).toBeUndefined();
  });

  it('§2.1 a parent run of another case is refused (CASE.CROSS_CASE_DENIED); the root is derived from the parent, never taken from the caller', async () => {
    const caseB = `case-${randomUUID().slice(0, 8)}`;
    const formB = await putArtifact(stack, await uploader(stack, caseB, versions), 'client_intake_form', { name: 'Someone', matter_description: 'x' });
    const cross = await startRun(stack, { agent_name: 'MAPPING_AGENT', case_id: caseB, parent_run_id: workflow.run_id, input_artifacts: [formB], parameters: {} });
    expect(cross).toMatchObject({ outcome: 'deny', error: { error_code: 'CASE.CROSS_CASE_DENIED', retryable: false } });
    expect(await stack.runEvents(cross.run_id)).toEqual([]);
    expect((await runTree(stack, workflow.run_id)).some((r) => r.created.case_id === caseB)).toBe(false);

    const mapping = { agent_name: 'MAPPING_AGENT', case_id: caseA, parent_run_id: workflow.run_id, input_artifacts: [inputs.document], parameters: {} };
    const otherRoot = await startRun(stack, { ...mapping, root_run_id: randomUUID() });
    expect(otherRoot).toMatchObject({ outcome: 'failure', error: { error_code: 'INVALID_INPUT' } });
    const unknownParent = await startRun(stack, { ...mapping, parent_run_id: randomUUID() });
    expect(unknownParent).toMatchObject({ outcome: 'failure', error: { error_code: 'INVALID_INPUT' } });
    expect(await stack.runEvents(unknownParent.run_id)).toEqual([]);
  });
});
