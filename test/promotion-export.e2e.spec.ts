import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Objm } from '@nats-io/obj';
import type { ArtifactGetResult, ArtifactRef, DbResult, ExportResult, GovernanceScope, PromotionResult } from '@runledger/contracts';
import { NatsKvDocumentStore } from '@runledger/document-store';
import { aggregateRef } from '@runledger/event-log';
import { CoverageReport, loadPolicy, sha256Hex, verifyBundle } from '@runledger/governance';
import type { WireError } from '@runledger/kernel';
import { childRunId } from '@runledger/runs';
import { TestStack } from './support/stack';

jest.setTimeout(120_000);

const POLICY_DIR = join(__dirname, '..', 'policy', 'contract-v1');
const policy = loadPolicy({ lanesYaml: readFileSync(join(POLICY_DIR, 'lanes.yaml'), 'utf8'), rolesYaml: readFileSync(join(POLICY_DIR, 'roles.yaml'), 'utf8') });

/** A caller's governance scope: a fresh parent run, pinned to the policy files' versions. */
function as(agent_name: string, lane: string, case_id?: string): GovernanceScope {
  const run = randomUUID();
  return { parent_run_id: run, root_run_id: run, agent_name, lane, ...(case_id ? { case_id } : {}), policy_versions: { ...policy.versions } };
}

const TRANSCRIPT =
  'The client explained that her landlord refused to return the security deposit after she moved out of the apartment on Maple Street in March and ignored three written requests for an itemised statement.';
/** Raw case text persisted as a document (not an artifact): the sanitiser reads the case's transcripts too. */
const PERSISTED_TRANSCRIPT = 'Later in the session she recalled that the property manager promised a refund by the end of April but never sent it.';
const CLIENT = { name: 'Jane Alvarez', email: 'jane.alvarez@example.com', phone: '+1 415 555 0134' };

describe('Governed runs over the bus: promotion, export and artifacts', () => {
  let stack: TestStack;
  const caseA = `case-${randomUUID().slice(0, 8)}`;
  const caseB = `case-${randomUUID().slice(0, 8)}`;
  const interviewA = as('INTERVIEW_AGENT', 'WRITE_INTAKE_ARTIFACTS', caseA);
  let transcriptA: ArtifactRef;
  let factsA: ArtifactRef;

  const put = async (content: string, governance: GovernanceScope, kind: string, media_type = 'text/plain; charset=utf-8', extra: Record<string, unknown> = {}) =>
    stack.request<ArtifactRef>('rl.artifacts.put', { content_base64: Buffer.from(content).toString('base64'), media_type, kind, governance, ...extra });
  const get = (artifact_id: string, governance: GovernanceScope) => stack.request<ArtifactGetResult>('rl.artifacts.get', { artifact_id, governance });
  const promote = (governance: GovernanceScope, candidate: { title: string; text: string }, extra: Record<string, unknown> = {}) =>
    stack.request<PromotionResult>('rl.promotion.promote', {
      promotion_id: `promo-${randomUUID()}`, promotion_ticket_id: 'ticket-42', target: 'shared_playbooks', candidate,
      source_case_id: caseA, source_artifact_ids: [transcriptA.artifact_id], governance, ...extra,
    });
  const exportBundle = (governance: GovernanceScope, case_id: string, artifact_ids: string[]) =>
    stack.request<ExportResult>('rl.export.bundle', { export_id: `export-${randomUUID()}`, case_id, artifact_ids, governance });
  const types = async (runId: string) => (await stack.runEvents(runId)).map((e) => e.type);

  beforeAll(async () => {
    // Only the services these choke points use: callers here are the agents themselves.
    stack = await TestStack.start({ services: ['db-write', 'audit-ledger', 'promotion', 'export'] });
    // Case A as the interview and mapping agents left it: a transcript, facts, and the client's entity.
    transcriptA = (await put(TRANSCRIPT, interviewA, 'transcript')).body;
    factsA = (await put(JSON.stringify({ facts: ['deposit withheld', 'three written requests'] }), as('MAPPING_AGENT', 'WRITE_MAPPING_OUTPUTS', caseA), 'facts', 'application/json')).body;
    const entity = await stack.request<DbResult>('rl.db.write', { write_id: 'client', collection: 'entities', operation: 'upsert', document: { ...CLIENT, case_id: caseA }, governance: interviewA });
    expect(entity.body.status).toBe('ok');
    const transcript = await stack.request<DbResult>('rl.db.write', { write_id: 'transcript-1', collection: 'transcripts', operation: 'append', document: { case_id: caseA, text: PERSISTED_TRANSCRIPT }, governance: interviewA });
    expect(transcript.body.status).toBe('ok');
  });
  afterAll(async () => stack?.stop());

  describe('§7.4 GOVERNANCE_AGENT can promote sanitised insight only', () => {
    const governance = as('GOVERNANCE_AGENT', 'PROMOTE_SHARED_KNOWLEDGE');

    it('a sanitised candidate is promoted: shared document, promoted artifact and receipt, PromotionAudited and RunCompleted; a retry replays it', async () => {
      const candidate = { title: 'Withheld deposits', text: 'When a deposit is kept without an itemised statement, send a written demand citing the statutory deadline before filing a small claim.' };
      const request = { promotion_id: 'promo-sanitised', promotion_ticket_id: 'ticket-42', target: 'shared_playbooks', candidate, source_case_id: caseA, source_artifact_ids: [transcriptA.artifact_id], governance };
      const r = await stack.request<PromotionResult>('rl.promotion.promote', request);
      expect(r.body).toMatchObject({ status: 'promoted', child_run_id: childRunId('promotion', governance.parent_run_id, 'promo-sanitised'), replayed: false });
      const [promoted, receipt] = r.body.output_artifacts!;
      expect([promoted.kind, receipt.kind]).toEqual(['promoted_shared_playbook', 'promotion_receipt']);
      expect(promoted.case_id).toBeUndefined(); // the shared plane belongs to no case

      const promotedBytes = Buffer.from((await get(promoted.artifact_id, governance)).body.content_base64, 'base64');
      expect(sha256Hex(promotedBytes)).toBe(promoted.sha256);
      expect(JSON.parse(promotedBytes.toString('utf8'))).toMatchObject({ title: candidate.title, text: candidate.text, metadata: { source_case_id: caseA, promotion_ticket_id: 'ticket-42' } });
      const receiptText = Buffer.from((await get(receipt.artifact_id, governance)).body.content_base64, 'base64').toString('utf8');
      expect(receiptText).toContain('Status:            promoted');
      expect(receiptText).toContain(promoted.sha256);

      const shared = await new NatsKvDocumentStore(stack.nc).collection<Record<string, unknown>>('shared_playbooks').get(r.body.shared_document_id!);
      expect(shared?.value).toMatchObject({ title: candidate.title, text: candidate.text, artifact_id: promoted.artifact_id, metadata: { source_case_id: caseA, source_artifact_count: 1 } });
      expect(JSON.stringify(shared?.value)).not.toContain('landlord refused'); // no source text in the shared plane

      const events = await stack.runEvents(r.body.child_run_id);
      expect(events.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'PromotionAudited', 'RunCompleted']);
      expect(events[0].data).toMatchObject({ run_kind: 'promotion', parent_run_id: governance.parent_run_id, input_artifacts: [transcriptA] });
      expect(events[3].data).toMatchObject({ status: 'promoted', target: 'shared_playbooks', source_artifacts: [transcriptA], output_artifacts: [promoted, receipt] });

      const again = await stack.request<PromotionResult>('rl.promotion.promote', request);
      expect(again.body).toEqual({ ...r.body, replayed: true });
      expect(await types(r.body.child_run_id)).toHaveLength(5);
    });

    it.each([
      ['raw case text (8+ words copied from a case artifact)', 'raw_case_text', 'Tip: she moved out of the apartment on Maple Street in March and waited.'],
      ['raw case text copied from a transcript persisted through db-write', 'raw_case_text', 'Expect that the property manager promised a refund by the end of April and did nothing.'],
      ['a client identity', 'client_identity', 'Clients like Jane Alvarez should keep every receipt of the deposit.'],
      ['a privileged note', 'privileged_notes', 'Privileged & Confidential: settle deposit claims early to save fees.'],
    ])('%s is refused with PromotionRefused, PromotionAudited and RunFailed PROMOTION.REFUSED, and never logged', async (_what, rule, text) => {
      const r = await promote(governance, { title: 'Deposit advice', text });
      expect(r.body.status).toBe('refused');
      expect(r.body.error?.error_code).toBe('PROMOTION.REFUSED');
      expect(r.body.findings!.map((f) => f.rule)).toEqual([rule]);
      const events = await stack.runEvents(r.body.child_run_id);
      expect(events.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'PromotionRefused', 'PromotionAudited', 'RunFailed']);
      expect(events[4].data).toMatchObject({ status: 'refused', findings_count: 1, source_artifacts: [transcriptA] });
      expect(JSON.stringify(events)).not.toContain(text); // the leak being stopped is not copied into the immutable log
    });

    it('a caller outside the lane (MAPPING_AGENT) is denied with AuthzDecided deny and RunDenied', async () => {
      const r = await promote(as('MAPPING_AGENT', 'PROMOTE_SHARED_KNOWLEDGE'), { title: 'Any', text: 'Any insight at all.' });
      expect(r.body).toMatchObject({ status: 'denied', error: { error_code: 'LANE.CALLER_DENIED' } });
      const events = await stack.runEvents(r.body.child_run_id);
      expect(events.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunDenied']);
      expect(events[1].data).toMatchObject({ decision: 'deny', code: 'LANE.CALLER_DENIED', lane: 'PROMOTE_SHARED_KNOWLEDGE', action: 'append:shared_playbooks' });
    });
  });

  it('§7.5 Export produces export_bundle manifest + hashes and logs export audit events', async () => {
    const governance = as('EXPORT_AGENT', 'EXPORT', caseA);
    const r = await exportBundle(governance, caseA, [transcriptA.artifact_id, factsA.artifact_id]);
    expect(r.body.status).toBe('exported');
    const { bundle_ref, manifest_ref, receipt_ref, bundle_sha256 } = r.body as Required<ExportResult>;

    const archive = Buffer.from((await get(bundle_ref.artifact_id, governance)).body.content_base64, 'base64');
    expect(sha256Hex(archive)).toBe(bundle_sha256);
    expect(bundle_ref).toMatchObject({ sha256: bundle_sha256, size_bytes: archive.length, kind: 'export_bundle', media_type: 'application/x-tar', case_id: caseA });
    const verified = verifyBundle(archive);
    if (!verified.ok) throw new Error(verified.problems.join('; '));
    expect(verified.manifest_sha256).toBe(manifest_ref.sha256);
    expect(verified.manifest.entries.map((e) => [e.artifact_id, e.sha256, e.size_bytes]).sort()).toEqual(
      [transcriptA, factsA].map((a) => [a.artifact_id, a.sha256, a.size_bytes]).sort(),
    );
    const receipt = JSON.parse(Buffer.from((await get(receipt_ref.artifact_id, governance)).body.content_base64, 'base64').toString('utf8'));
    expect(receipt).toMatchObject({ case_id: caseA, bundle_sha256, manifest_sha256: manifest_ref.sha256, artifact_count: 2 });

    const events = await stack.runEvents(r.body.child_run_id);
    expect(events.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'ExportAuthorized', 'ExportAssembled', 'ExportFinalized', 'RunCompleted']);
    expect(events[4].data).toMatchObject({ manifest: verified.manifest, manifest_sha256: manifest_ref.sha256 });
    expect(events[5].data).toMatchObject({ bundle_ref, bundle_sha256, receipt_ref });
    // "export_bundles table (append)": a db_write child run of the export run.
    const recordRun = childRunId('db_write', r.body.child_run_id, 'export-bundle-record');
    expect(await types(recordRun)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'DbWriteAudited', 'RunCompleted']);
    const record = await new NatsKvDocumentStore(stack.nc).collection<Record<string, unknown>>('export_bundles').find({ export_run_id: r.body.child_run_id });
    expect(record[0].value).toMatchObject({ case_id: caseA, manifest_sha256: manifest_ref.sha256, bundle: bundle_ref, receipt: receipt_ref });

    // Every run of this file (promotions, exports, their db_write children, denials) has its §6 audit records.
    const chained = await stack.waitFor(async () => {
      const q = await stack.request<{ events: Array<{ type: string }> }>('rl.audit.query', { run_id: r.body.child_run_id });
      return q.body.events?.some((e) => e.type === 'RunCompleted') ? q.body.events : undefined;
    });
    expect(chained.map((e) => e.type)).toEqual(expect.arrayContaining(['ExportAuthorized', 'ExportAssembled', 'ExportFinalized']));
    const coverage = await stack.request<CoverageReport>('rl.audit.coverage', {});
    expect(coverage.body.violations).toEqual([]);
    expect(coverage.body.runs_checked).toBeGreaterThanOrEqual(8);
  });

  it('Artifacts: a reference whose hash does not match its content is refused', async () => {
    const claimed = await put('what the caller sent', interviewA, 'interview_notes', 'text/plain', { sha256: sha256Hex('what the caller meant') });
    expect(claimed.ok).toBe(false);
    expect((claimed.body as unknown as WireError).code).toBe('ARTIFACT.HASH_MISMATCH');

    // Bytes swapped in storage behind the reference's back (the object keeps its metadata).
    const ref = (await put('original interview note', interviewA, 'interview_notes')).body;
    const os = await new Objm(stack.nc).open('rl_artifacts');
    const info = await os.info(ref.artifact_id);
    await os.putBlob({ name: ref.artifact_id, metadata: info!.metadata }, new TextEncoder().encode('forged interview note!!'));
    const read = await get(ref.artifact_id, interviewA);
    expect(read.ok).toBe(false);
    expect((read.body as unknown as WireError).code).toBe('ARTIFACT.HASH_MISMATCH');

    const exported = await exportBundle(as('EXPORT_AGENT', 'EXPORT', caseA), caseA, [transcriptA.artifact_id, ref.artifact_id]);
    expect(exported.body).toMatchObject({ status: 'denied', error: { error_code: 'ARTIFACT.HASH_MISMATCH' } });
    expect(await types(exported.body.child_run_id)).toEqual(['RunCreated', 'AuthzDecided', 'RunDenied']);
  });

  it("Case isolation: reading or exporting another case's artifact is denied", async () => {
    const interviewB = as('INTERVIEW_AGENT', 'WRITE_INTAKE_ARTIFACTS', caseB);
    const foreign = (await put('case B private transcript', interviewB, 'transcript')).body;
    expect(foreign.case_id).toBe(caseB);

    const read = await get(foreign.artifact_id, interviewA);
    expect((read.body as unknown as WireError).code).toBe('CASE.CROSS_CASE_DENIED');
    expect((await stack.log.read(aggregateRef('artifact', foreign.artifact_id))).map((e) => e.type)).toEqual(['ArtifactStored', 'ArtifactAccessDenied']);

    const mixed = await exportBundle(as('EXPORT_AGENT', 'EXPORT', caseA), caseA, [transcriptA.artifact_id, foreign.artifact_id]);
    expect(mixed.body).toMatchObject({ status: 'denied', error: { error_code: 'CASE.CROSS_CASE_DENIED' } });
    const events = await stack.runEvents(mixed.body.child_run_id);
    expect(events.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunDenied']);
    expect(events[1].data).toMatchObject({ decision: 'deny', code: 'CASE.CROSS_CASE_DENIED' });

    const otherCase = await exportBundle(as('EXPORT_AGENT', 'EXPORT', caseA), caseB, [foreign.artifact_id]);
    expect(otherCase.body).toMatchObject({ status: 'denied', error: { error_code: 'CASE.CROSS_CASE_DENIED' } });

    const promotion = await promote(as('GOVERNANCE_AGENT', 'PROMOTE_SHARED_KNOWLEDGE', caseB), { title: 'Deposits', text: 'Keep copies of every request.' });
    expect(promotion.body).toMatchObject({ status: 'denied', error: { error_code: 'CASE.CROSS_CASE_DENIED' } });
  });
});
