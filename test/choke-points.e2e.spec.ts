import { randomUUID } from 'node:crypto';
import type { ArtifactRef, DbResult, ExportResult, GovernanceScope, PromotionResult } from '@runledger/contracts';
import type { WireError } from '@runledger/kernel';
import { RunRepository } from '@runledger/runs';
import { approvedTicket, policyVersionsIn, putArtifact, putTicket, recordedCaller, SHIPPED_POLICY_DIR, startRun } from './support/governed-runs';
import { TestStack } from './support/stack';

jest.setTimeout(180_000);

/**
 * Issue 9 "choke points trust only the log": every choke point checks the caller's claims against the calling
 * run's recorded RunCreated (agent, case, root, user, pins), takes the case from that record, refuses a finished
 * run as the parent of a new child run, and binds an artifact reference by size as well as hash.
 */
describe('Issue 9 choke points trust only the log', () => {
  let stack: TestStack;
  const versions = policyVersionsIn(SHIPPED_POLICY_DIR);
  const caseA = `case-${randomUUID().slice(0, 8)}`;
  const caseB = `case-${randomUUID().slice(0, 8)}`;
  const as = (agent: string, lane: string, caseId?: string) => recordedCaller(stack, agent, lane, caseId, versions);
  /** Closes a recorded caller's run as completed, as its worker would when it finishes. */
  const finish = async (g: GovernanceScope) => {
    const repo = new RunRepository(stack.log);
    const loaded = await repo.load(g.parent_run_id);
    await repo.append({ run_id: g.parent_run_id, root_run_id: g.root_run_id, case_id: g.case_id }, [{ type: 'RunCompleted', data: { output_artifacts: [], result: {} } }], { expectedVersion: loaded.version, commandId: `finish:${g.parent_run_id}` });
  };
  const codeOf = (body: unknown) => (body as WireError).code;
  const write = (governance: GovernanceScope, document: Record<string, unknown>) =>
    stack.request<DbResult>('rl.db.write', { write_id: `w-${randomUUID()}`, collection: 'transcripts', operation: 'append', document, governance });
  const get = (artifact_id: string, governance: GovernanceScope) => stack.request<unknown>('rl.artifacts.get', { artifact_id, governance });
  const put = (governance: GovernanceScope, text: string) =>
    stack.request<ArtifactRef>('rl.artifacts.put', { content_base64: Buffer.from(text).toString('base64'), media_type: 'text/plain', kind: 'interview_notes', governance });
  const promote = async (governance: GovernanceScope) =>
    stack.request<PromotionResult>('rl.promotion.promote', {
      promotion_id: `promo-${randomUUID()}`, target: 'shared_playbooks', source_case_id: caseA, candidate: { title: 'Keep a timeline', text: 'Collect the dates of each complaint early.' },
      promotion_ticket_id: (await putTicket(stack, caseA, approvedTicket(caseA))).artifact_id, governance,
    });
  const exportBundle = (governance: GovernanceScope, artifact_ids: string[]) =>
    stack.request<ExportResult>('rl.export.bundle', { export_id: `export-${randomUUID()}`, case_id: caseA, artifact_ids, governance });
  const runTypes = async (runId: string) => (await stack.runEvents(runId)).map((e) => e.type);

  beforeAll(async () => {
    stack = await TestStack.shared();
  });
  afterAll(async () => stack?.stop());

  it('Issue 9 terminal parent: db-write refuses a completed run as the parent of a new db_write child run (RUN.PARENT_TERMINAL, recorded)', async () => {
    const interview = await as('INTERVIEW_AGENT', 'WRITE_INTAKE_ARTIFACTS', caseA);
    const doc = { case_id: caseA, client_session_id: 's1', source_run_id: randomUUID(), transcription_id: randomUUID(), artifact_id: 'art-x', sha256: 'a'.repeat(64), segment_count: 1, word_count: 3 };
    expect((await write(interview, doc)).body).toMatchObject({ status: 'ok' });
    await finish(interview);
    const after = await write(interview, { ...doc, transcription_id: randomUUID() });
    expect(after.body).toMatchObject({ status: 'denied', error: { error_code: 'RUN.PARENT_TERMINAL', retryable: false } });
    expect(await runTypes(after.body.child_run_id!)).toEqual(['RunCreated', 'AuthzDecided', 'RunDenied']);
  });

  it('Isolation at db-write: an append on a document id another case holds is not_found and discloses nothing; a retry in its own case gets its document back', async () => {
    const document_id = `doc-${randomUUID()}`;
    const doc = (caseId: string) => ({ case_id: caseId, client_session_id: 's1', source_run_id: randomUUID(), transcription_id: randomUUID(), artifact_id: 'art-x', sha256: 'b'.repeat(64), segment_count: 1, word_count: 3 });
    const append = (g: GovernanceScope, d: Record<string, unknown>) =>
      stack.request<DbResult>('rl.db.write', { write_id: `w-${randomUUID()}`, collection: 'transcripts', operation: 'append', document_id, document: d, governance: g });
    const ownerDoc = doc(caseA);
    const owner = await append(await as('INTERVIEW_AGENT', 'WRITE_INTAKE_ARTIFACTS', caseA), ownerDoc);
    expect(owner.body).toMatchObject({ status: 'ok' });
    const other = await append(await as('INTERVIEW_AGENT', 'WRITE_INTAKE_ARTIFACTS', caseB), doc(caseB));
    expect(other.body.status).toBe('not_found');
    expect(JSON.stringify(other.body)).not.toContain(ownerDoc.transcription_id);
    const again = await append(await as('INTERVIEW_AGENT', 'WRITE_INTAKE_ARTIFACTS', caseA), doc(caseA));
    expect(again.body).toMatchObject({ status: 'ok' });
    expect(JSON.stringify(again.body)).toContain(ownerDoc.transcription_id); // the stored document, not the retry's
  });

  it('Issue 9 terminal parent: tool-gateway refuses a completed run as the parent of a new tool call (RUN.PARENT_TERMINAL)', async () => {
    const reply = await stack.request<{ run_id: string }>('agents.task-assistant.process', { user_id: 'u-choke', conversation_id: randomUUID(), message: 'add task file the form' });
    const created = (await stack.runEvents(reply.body.run_id))[0].data as { policy_versions: { lanes: string; roles: string } };
    expect(await runTypes(reply.body.run_id)).toContain('RunCompleted');
    const r = await stack.request<{ status: string; child_run_id: string; error?: { error_code: string } }>('rl.tool.invoke', {
      call_id: 'after-the-end', tool_name: 'list_tasks', parameters: { user_id: 'u-choke' },
      governance: { parent_run_id: reply.body.run_id, root_run_id: reply.body.run_id, agent_name: 'TASK_ASSISTANT', lane: 'TASKS', user_id: 'u-choke', policy_versions: created.policy_versions },
    });
    expect(r.body).toMatchObject({ status: 'denied', error: { error_code: 'RUN.PARENT_TERMINAL' } });
    expect(await runTypes(r.body.child_run_id)).toEqual(['RunCreated', 'AuthzDecided', 'RunDenied']);
  });

  it('Issue 9 terminal parent: runs.start refuses a completed run as parent_run_id (RUN.PARENT_TERMINAL)', async () => {
    const intake = await as('ORCHESTRATOR', 'NONE', caseA);
    await finish(intake);
    const r = await startRun(stack, { agent_name: 'INTAKE_AGENT', case_id: caseA, parent_run_id: intake.parent_run_id, input_artifacts: [], parameters: {} });
    expect(r).toMatchObject({ outcome: 'deny', error: { error_code: 'RUN.PARENT_TERMINAL', retryable: false } });
    expect(await runTypes(r.run_id)).toEqual([]);
  });

  it("Issue 9 artifacts: the case comes from the calling run's record — a caller claiming another case is refused (RUN.CLAIM_MISMATCH), get and put", async () => {
    const ownerA = await as('INTERVIEW_AGENT', 'WRITE_INTAKE_ARTIFACTS', caseA);
    const secret = (await put(ownerA, 'case A notes only')).body;
    const runOfB = await as('INTERVIEW_AGENT', 'WRITE_INTAKE_ARTIFACTS', caseB);
    const claimsA = { ...runOfB, case_id: caseA };
    const read = await get(secret.artifact_id, claimsA);
    expect(read.ok).toBe(false);
    expect(codeOf(read.body)).toBe('RUN.CLAIM_MISMATCH');
    const planted = await put(claimsA, 'planted into case A by a run of case B');
    expect(planted.ok).toBe(false);
    expect(codeOf(planted.body)).toBe('RUN.CLAIM_MISMATCH');
    // Its own case's artifacts stay readable.
    expect((await get(secret.artifact_id, ownerA)).ok).toBe(true);
  });

  it('Issue 9 artifacts: a run that is not in the log, or a caller claiming another agent than its run recorded, is refused', async () => {
    const ownerA = await as('INTERVIEW_AGENT', 'WRITE_INTAKE_ARTIFACTS', caseA);
    const ref = (await put(ownerA, 'case A interview notes')).body;
    const ghost = randomUUID();
    const unknown = await get(ref.artifact_id, { ...ownerA, parent_run_id: ghost, root_run_id: ghost });
    expect(codeOf(unknown.body)).toBe('RUN.UNKNOWN_CALLER');
    const otherAgent = await get(ref.artifact_id, { ...ownerA, agent_name: 'INTAKE_AGENT' });
    expect(codeOf(otherAgent.body)).toBe('RUN.CLAIM_MISMATCH');
  });

  it("Issue 9 promotion: a caller claiming another agent's identity, or a run that does not exist, is denied and recorded", async () => {
    const mapping = await as('MAPPING_AGENT', 'WRITE_MAPPING_OUTPUTS', caseA);
    const governance = await as('GOVERNANCE_AGENT', 'PROMOTE_SHARED_KNOWLEDGE', caseA);
    // The mapping agent's run claims to be the governance agent.
    const impostor = await promote({ ...mapping, agent_name: 'GOVERNANCE_AGENT', lane: 'PROMOTE_SHARED_KNOWLEDGE' });
    expect(impostor.body).toMatchObject({ status: 'denied', error: { error_code: 'RUN.CLAIM_MISMATCH' } });
    expect(await runTypes(impostor.body.child_run_id)).toEqual(['RunCreated', 'AuthzDecided', 'RunDenied']);
    const ghost = randomUUID();
    const unknown = await promote({ ...governance, parent_run_id: ghost, root_run_id: ghost });
    expect(unknown.body).toMatchObject({ status: 'denied', error: { error_code: 'RUN.UNKNOWN_CALLER' } });
    // The real governance agent run is not refused on its identity.
    const real = await promote(governance);
    expect(real.body.error?.error_code).not.toMatch(/^RUN\./);
  });

  it("Issue 9 export: a caller claiming another agent's identity, or a run that does not exist, is denied and recorded", async () => {
    const intake = await as('INTAKE_AGENT', 'WRITE_INTAKE_ARTIFACTS', caseA);
    const form = await putArtifact(stack, intake, 'client_intake_form', { name: 'Pat', matter_description: 'x' });
    const exporter = await as('EXPORT_AGENT', 'EXPORT', caseA);
    const impostor = await exportBundle({ ...intake, agent_name: 'EXPORT_AGENT', lane: 'EXPORT' }, [form.artifact_id]);
    expect(impostor.body).toMatchObject({ status: 'denied', error: { error_code: 'RUN.CLAIM_MISMATCH' } });
    expect(await runTypes(impostor.body.child_run_id)).toEqual(['RunCreated', 'AuthzDecided', 'RunDenied']);
    const ghost = randomUUID();
    const unknown = await exportBundle({ ...exporter, parent_run_id: ghost, root_run_id: ghost }, [form.artifact_id]);
    expect(unknown.body).toMatchObject({ status: 'denied', error: { error_code: 'RUN.UNKNOWN_CALLER' } });
    expect((await exportBundle(exporter, [form.artifact_id])).body.status).toBe('exported');
  });

  it("Issue 26 refusal order (contract 001 case isolation, README choke points): exporting a case-B artifact from a finished case-A run is CASE.CROSS_CASE_DENIED, not RUN.PARENT_TERMINAL", async () => {
    const foreign = await putArtifact(stack, await as('INTAKE_AGENT', 'WRITE_INTAKE_ARTIFACTS', caseB), 'client_intake_form', { name: 'Kim', matter_description: 'case B only' });
    const own = await putArtifact(stack, await as('INTAKE_AGENT', 'WRITE_INTAKE_ARTIFACTS', caseA), 'client_intake_form', { name: 'Pat', matter_description: 'case A' });
    const exporter = await as('EXPORT_AGENT', 'EXPORT', caseA);
    await finish(exporter);
    const cross = await exportBundle(exporter, [own.artifact_id, foreign.artifact_id]);
    expect(cross.body).toMatchObject({ status: 'denied', error: { error_code: 'CASE.CROSS_CASE_DENIED', retryable: false } });
    const events = await stack.runEvents(cross.body.child_run_id);
    expect(events.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunDenied']);
    expect(events[1].data).toMatchObject({ decision: 'deny', code: 'CASE.CROSS_CASE_DENIED' });
    // Everything the export authorises allowed, the finished caller is what is refused.
    const ownOnly = await exportBundle(exporter, [own.artifact_id]);
    expect(ownOnly.body).toMatchObject({ status: 'denied', error: { error_code: 'RUN.PARENT_TERMINAL' } });
  });

  it('Issue 26 refusal order: promoting from a case-B source artifact as a finished run is CASE.CROSS_CASE_DENIED, not RUN.PARENT_TERMINAL', async () => {
    const foreign = await putArtifact(stack, await as('INTAKE_AGENT', 'WRITE_INTAKE_ARTIFACTS', caseB), 'client_intake_form', { name: 'Kim', matter_description: 'case B only' });
    const governance = await as('GOVERNANCE_AGENT', 'PROMOTE_SHARED_KNOWLEDGE', caseA);
    const ticket = (await putTicket(stack, caseA, approvedTicket(caseA))).artifact_id;
    await finish(governance);
    const r = await stack.request<PromotionResult>('rl.promotion.promote', {
      promotion_id: `promo-${randomUUID()}`, target: 'shared_playbooks', source_case_id: caseA, source_artifact_ids: [foreign.artifact_id],
      candidate: { title: 'Keep a timeline', text: 'Collect the dates of each complaint early.' }, promotion_ticket_id: ticket, governance,
    });
    expect(r.body).toMatchObject({ status: 'denied', error: { error_code: 'CASE.CROSS_CASE_DENIED', retryable: false } });
    expect(await runTypes(r.body.child_run_id)).toEqual(['RunCreated', 'AuthzDecided', 'RunDenied']);
  });

  it('Issue 9 size_bytes: an input artifact reference with the right sha256 but a wrong size_bytes is refused', async () => {
    const intake = await as('INTAKE_AGENT', 'WRITE_INTAKE_ARTIFACTS', caseA);
    const form = await putArtifact(stack, intake, 'client_intake_form', { name: 'Sam Lee', contact: { email: 'sam@example.com' }, matter_description: 'Unpaid wages after dismissal.', incident_date: '2026-03-02', opposing_party: 'Acme' });
    const wrongSize = await startRun(stack, { agent_name: 'INTAKE_AGENT', case_id: caseA, input_artifacts: [{ ...form, size_bytes: form.size_bytes + 1 }], parameters: {} });
    expect(wrongSize).toMatchObject({ outcome: 'failure', error: { error_code: 'ARTIFACT.HASH_MISMATCH' } });
    expect(wrongSize.error!.message).toMatch(/size_bytes/);
    expect(await stack.runEvents(wrongSize.run_id)).toEqual([]);
    // The request hash binds artifacts by id and sha256, so the control run uses other bytes (else it replays the refusal).
    const other = await putArtifact(stack, intake, 'client_intake_form', { name: 'Sam Lee', contact: { email: 'sam@example.com' }, matter_description: 'Unpaid overtime.', incident_date: '2026-03-03', opposing_party: 'Acme' });
    const right = await startRun(stack, { agent_name: 'INTAKE_AGENT', case_id: caseA, input_artifacts: [other], parameters: {} });
    expect(right.error).toBeNull();
  });
});
