import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { ArtifactGetResult, ArtifactRef, DbResult, ExportResult, GovernanceScope, PromotionResult } from '@runledger/contracts';
import { NatsKvDocumentStore } from '@runledger/document-store';
import { aggregateRef } from '@runledger/event-log';
import { chainEntriesOf, checkpointSigned, CoverageReport, loadPolicy, sha256Hex, verifyBundle } from '@runledger/governance';
import { describeObject, putObject, trustedKeys } from '@runledger/messaging';
import type { WireError } from '@runledger/kernel';
import { childRunId } from '@runledger/runs';
import { approvedTicket, APPROVER, ingestAs, putTicket, recordedCaller } from './support/governed-runs';
import { TestStack } from './support/stack';

jest.setTimeout(120_000);

const POLICY_DIR = join(__dirname, '..', 'policy', 'contract-v1');
const policy = loadPolicy({ lanesYaml: readFileSync(join(POLICY_DIR, 'lanes.yaml'), 'utf8'), rolesYaml: readFileSync(join(POLICY_DIR, 'roles.yaml'), 'utf8') });

const TRANSCRIPT =
  'The client explained that her landlord refused to return the security deposit after she moved out of the apartment on Maple Street in March and ignored three written requests for an itemised statement.';
/** A later session's transcript: stored only as an artifact that the case's `transcripts` record references. */
const SECOND_SESSION = 'Later in the session she recalled that the property manager promised a refund by the end of April but never sent it.';
/** The lease: no caller names it; the case's facts reference it as their source (the mapping read it). */
const LEASE = 'Lease clause nine says the landlord must return the deposit within twenty one days of move out together with an itemised list of deductions.';
const CLIENT = { name: 'Jane Alvarez', email: 'jane.alvarez@example.com', phone: '+1 415 555 0134' };

/** A transcript artifact as the INTERVIEW_AGENT publishes it: timed speaker turns, the text in the segments. */
const transcriptJson = (case_id: string, session: string, clientText: string) => JSON.stringify({
  case_id, client_session_id: session, transcription_id: randomUUID(), word_count: clientText.split(' ').length + 4, duration_ms: 9_000,
  segments: [
    { index: 0, speaker: 'interviewer', start_ms: 0, end_ms: 1_600, text: 'What happened with the deposit?' },
    { index: 1, speaker: 'client', start_ms: 2_100, end_ms: 9_000, text: clientText },
  ],
});

describe('Governed runs over the bus: promotion, export and artifacts', () => {
  let stack: TestStack;
  const caseA = `case-${randomUUID().slice(0, 8)}`;
  const caseB = `case-${randomUUID().slice(0, 8)}`;
  let interviewA: GovernanceScope;
  let mappingA: GovernanceScope;
  let transcriptA: ArtifactRef;
  /** A caller's governance scope: an agent run recorded in the log, pinned to the policy files' versions. */
  const as = (agent_name: string, lane: string, case_id?: string) => recordedCaller(stack, agent_name, lane, case_id, { ...policy.versions });
  let factsA: ArtifactRef;

  const put = async (content: string, governance: GovernanceScope, kind: string, media_type = 'text/plain; charset=utf-8', extra: Record<string, unknown> = {}) =>
    stack.request<ArtifactRef>('rl.artifacts.put', { content_base64: Buffer.from(content).toString('base64'), media_type, kind, governance, ...extra });
  const get = (artifact_id: string, governance: GovernanceScope) => stack.request<ArtifactGetResult>('rl.artifacts.get', { artifact_id, governance });
  /** An ATTORNEY_ADMIN's approval as the approver puts it in: into `storedIn` (by default the case it covers). */
  const ticketFor = async (source_case_id: string, overrides: Record<string, unknown> = {}, storedIn = source_case_id) =>
    (await putTicket(stack, storedIn, approvedTicket(source_case_id, overrides))).artifact_id;
  /** A promotion with its own fresh approved ticket for its source case, unless `extra` names one. */
  const promote = async (governance: GovernanceScope, candidate: { title: string; text: string }, extra: Record<string, unknown> = {}) =>
    stack.request<PromotionResult>('rl.promotion.promote', {
      promotion_id: `promo-${randomUUID()}`, target: 'shared_playbooks', candidate, source_case_id: caseA, source_artifact_ids: [transcriptA.artifact_id], governance,
      ...extra, promotion_ticket_id: (extra.promotion_ticket_id as string | undefined) ?? (await ticketFor((extra.source_case_id as string | undefined) ?? caseA)),
    });
  const exportBundle = (governance: GovernanceScope, case_id: string, artifact_ids: string[]) =>
    stack.request<ExportResult>('rl.export.bundle', { export_id: `export-${randomUUID()}`, case_id, artifact_ids, governance });
  const types = async (runId: string) => (await stack.runEvents(runId)).map((e) => e.type);
  const write = async (governance: GovernanceScope, write_id: string, collection: string, document: Record<string, unknown>, scope?: Record<string, string>) => {
    const operation = collection === 'entities' ? 'upsert' : 'append';
    const r = await stack.request<DbResult>('rl.db.write', { write_id, collection, operation, document, governance: { ...governance, ...(scope ? { scope } : {}) } });
    expect({ write_id, ...r.body }).toMatchObject({ write_id, status: 'ok' });
  };
  /** A transcripts record as the INTERVIEW_AGENT appends it: ids and counts only, the text stays in the artifact. */
  const transcriptRecord = (case_id: string, ref: ArtifactRef) => ({
    case_id, client_session_id: 'session-1', source_run_id: randomUUID(), transcription_id: randomUUID(), artifact_id: ref.artifact_id, sha256: ref.sha256, segment_count: 2, word_count: 30,
  });

  beforeAll(async () => {
    // Only the services these choke points use: callers here are the agents themselves. Small screen limits so a
    // test can reach them; case A stays well below them.
    stack = await TestStack.start({
      services: ['db-write', 'audit-ledger', 'promotion', 'export'],
      serviceEnv: { promotion: { PROMOTION_MAX_CASE_RECORDS: '5', PROMOTION_MAX_SCREEN_ARTIFACTS: '8' } },
    });
    interviewA = await as('INTERVIEW_AGENT', 'WRITE_INTAKE_ARTIFACTS', caseA);
    mappingA = await as('MAPPING_AGENT', 'WRITE_MAPPING_OUTPUTS', caseA);
    // Case A as the interview and mapping agents leave it, in their real shapes: artifacts hold the text,
    // records hold ids, counts and clipped summaries.
    transcriptA = (await put(transcriptJson(caseA, 'session-1', TRANSCRIPT), interviewA, 'transcript', 'application/json')).body;
    const secondSession = (await put(transcriptJson(caseA, 'session-2', SECOND_SESSION), interviewA, 'transcript', 'application/json')).body;
    const notes = (await put(JSON.stringify({ case_id: caseA, client_session_id: 'session-1', notes: [{ topic: 'harm', prompt_id: 'p4-harm', summary: 'Deposit of two months rent withheld.', segment_indexes: [1] }] }), interviewA, 'interview_notes', 'application/json')).body;
    const lease = (await put(LEASE, await as('INTAKE_AGENT', 'WRITE_INTAKE_ARTIFACTS', caseA), 'source_document')).body;
    const facts = [{ fact_id: randomUUID(), text: 'The deposit was withheld after move out.', source_artifact_id: lease.artifact_id, locator: 'text/s0' }];
    factsA = (await put(JSON.stringify({ case_id: caseA, coa_version: 'coa-2026.1', source_artifact_ids: [lease.artifact_id, transcriptA.artifact_id], facts }), mappingA, 'facts', 'application/json')).body;

    await write(interviewA, 'client', 'entities', { ...CLIENT, case_id: caseA });
    await write(interviewA, 'transcript-1', 'transcripts', transcriptRecord(caseA, transcriptA));
    await write(interviewA, 'transcript-2', 'transcripts', transcriptRecord(caseA, secondSession));
    await write(interviewA, 'notes-1', 'interview_notes', { case_id: caseA, client_session_id: 'session-1', source_run_id: randomUUID(), artifact_id: notes.artifact_id, sha256: notes.sha256, notes: [{ topic: 'harm', prompt_id: 'p4-harm', summary: 'Deposit of two months rent withheld.' }] });
    await write(mappingA, 'facts-1', 'facts', { case_id: caseA, coa_version: 'coa-2026.1', source_run_id: randomUUID(), artifact_id: factsA.artifact_id, sha256: factsA.sha256, facts }, { coa_version: 'coa-2026.1' });
  });
  afterAll(async () => stack?.stop());

  describe('§7.4 GOVERNANCE_AGENT can promote sanitised insight only', () => {
    let governance: GovernanceScope;
    beforeAll(async () => {
      governance = await as('GOVERNANCE_AGENT', 'PROMOTE_SHARED_KNOWLEDGE');
    });
    const sharedTitled = async (title: string) => (await new NatsKvDocumentStore(stack.nc).collection<Record<string, unknown>>('shared_playbooks').find({ title })).map((d) => d.id);
    /** A ticket refusal is an authorisation decision: AuthzDecided deny and RunDenied with its code, no effect, nothing shared. */
    const expectTicketDenied = async (r: { body: PromotionResult }, code: string, title: string) => {
      expect(r.body).toMatchObject({ status: 'denied', error: { error_code: code, retryable: false } });
      const events = await stack.runEvents(r.body.child_run_id);
      expect(events.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunDenied']);
      expect(events[1].data).toMatchObject({ decision: 'deny', code, lane: 'PROMOTE_SHARED_KNOWLEDGE', action: 'append:shared_playbooks' });
      expect(events[2].data).toMatchObject({ error: { error_code: code } });
      expect(r.body.output_artifacts ?? []).toEqual([]);
      expect(await sharedTitled(title)).toEqual([]);
    };

    it('a sanitised candidate is promoted: shared document, promoted artifact and receipt, PromotionAudited and RunCompleted; a retry replays it', async () => {
      const candidate = { title: 'Withheld deposits', text: 'When a deposit is kept without an itemised statement, send a written demand citing the statutory deadline before filing a small claim.' };
      const ticket_id = `ticket-sanitised-${randomUUID()}`;
      const ticket = await putTicket(stack, caseA, approvedTicket(caseA, { ticket_id }));
      const request = { promotion_id: 'promo-sanitised', promotion_ticket_id: ticket.artifact_id, target: 'shared_playbooks', candidate, source_case_id: caseA, source_artifact_ids: [transcriptA.artifact_id], governance };
      const r = await stack.request<PromotionResult>('rl.promotion.promote', request);
      expect(r.body).toMatchObject({ status: 'promoted', child_run_id: childRunId('promotion', governance.parent_run_id, 'promo-sanitised'), replayed: false });
      const [promoted, receipt] = r.body.output_artifacts!;
      expect([promoted.kind, receipt.kind]).toEqual(['promoted_shared_playbook', 'promotion_receipt']);
      expect(promoted.case_id).toBeUndefined(); // the shared plane belongs to no case

      const promotedBytes = Buffer.from((await get(promoted.artifact_id, governance)).body.content_base64, 'base64');
      expect(sha256Hex(promotedBytes)).toBe(promoted.sha256);
      expect(JSON.parse(promotedBytes.toString('utf8'))).toMatchObject({ title: candidate.title, text: candidate.text, metadata: { source_case_id: caseA, promotion_ticket_id: ticket.artifact_id } });
      const receiptText = Buffer.from((await get(receipt.artifact_id, governance)).body.content_base64, 'base64').toString('utf8');
      expect(receiptText).toContain('Status:            promoted');
      expect(receiptText).toContain(promoted.sha256);

      const shared = await new NatsKvDocumentStore(stack.nc).collection<Record<string, unknown>>('shared_playbooks').get(r.body.shared_document_id!);
      expect(shared?.value).toMatchObject({ title: candidate.title, text: candidate.text, artifact_id: promoted.artifact_id, metadata: { source_case_id: caseA, source_artifact_count: 1, screened_artifact_count: 5 } });
      expect(JSON.stringify(shared?.value)).not.toContain('landlord refused'); // no source text in the shared plane

      const events = await stack.runEvents(r.body.child_run_id);
      expect(events.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'PromotionAudited', 'RunCompleted']);
      // The run's inputs are what it read: the ticket, the named transcript, then what the case's records reference.
      const inputs = (events[0].data as { input_artifacts: ArtifactRef[] }).input_artifacts;
      expect(events[0].data).toMatchObject({ run_kind: 'promotion', parent_run_id: governance.parent_run_id });
      expect(inputs.slice(0, 2)).toEqual([ticket, transcriptA]);
      expect(inputs.map((a) => a.kind).sort()).toEqual(['facts', 'interview_notes', 'promotion_ticket', 'source_document', 'transcript', 'transcript']);
      expect(events[3].data).toMatchObject({
        status: 'promoted', target: 'shared_playbooks', ticket_id, ticket_artifact: ticket, source_artifacts: [transcriptA], screened_artifact_count: 5, output_artifacts: [promoted, receipt],
      });
      // The ticket's use is recorded for single use, keyed by its ticket_id.
      const uses = await new NatsKvDocumentStore(stack.nc).collection<Record<string, unknown>>('promotion_tickets').find({ ticket_id });
      expect(uses.map((u) => u.value)).toEqual([{ ticket_id, ticket_artifact_id: ticket.artifact_id, promotion_id: 'promo-sanitised', promotion_run_id: r.body.child_run_id, target: 'shared_playbooks', source_case_id: caseA }]);

      const again = await stack.request<PromotionResult>('rl.promotion.promote', request);
      expect(again.body).toEqual({ ...r.body, replayed: true });
      expect(await types(r.body.child_run_id)).toHaveLength(5);
    });

    it.each([
      ['raw case text (8+ words copied from a source artifact the caller named)', 'raw_case_text', 'Tip: she moved out of the apartment on Maple Street in March and waited.'],
      ['raw case text copied from a transcript artifact that only the case’s transcripts record references', 'raw_case_text', 'Expect that the property manager promised a refund by the end of April and did nothing.'],
      ['raw case text copied from a source document reached through the case’s facts', 'raw_case_text', 'Remember the landlord must return the deposit within twenty one days of move out, so act quickly.'],
      ['a client identity', 'client_identity', 'Clients like Jane Alvarez should keep every receipt of the deposit.'],
      ['a privileged note', 'privileged_notes', 'Privileged & Confidential: settle deposit claims early to save fees.'],
    ])('%s is refused with PromotionRefused, PromotionAudited and RunFailed PROMOTION.REFUSED, and never logged', async (_what, rule, text) => {
      const r = await promote(governance, { title: 'Deposit advice', text });
      expect(r.body.status).toBe('refused');
      expect(r.body.error?.error_code).toBe('PROMOTION.REFUSED');
      expect(r.body.findings!.map((f) => f.rule)).toEqual([rule]);
      const events = await stack.runEvents(r.body.child_run_id);
      expect(events.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'PromotionRefused', 'PromotionAudited', 'RunFailed']);
      expect(events[4].data).toMatchObject({ status: 'refused', findings_count: 1, source_artifacts: [transcriptA], screened_artifact_count: 5 });
      expect(JSON.stringify(events)).not.toContain(text); // the leak being stopped is not copied into the immutable log
    });

    it('a case the screen cannot read completely is refused (PROMOTION.SCREEN_INCOMPLETE), never promoted half-screened', async () => {
      // Case C: more transcripts records than the screen reads (limit 5 in this stack).
      const caseC = `case-${randomUUID().slice(0, 8)}`;
      const interviewC = await as('INTERVIEW_AGENT', 'WRITE_INTAKE_ARTIFACTS', caseC);
      const transcriptC = (await put(transcriptJson(caseC, 'session-1', 'The tenant left the keys with the neighbour on the last day.'), interviewC, 'transcript', 'application/json')).body;
      for (let i = 0; i < 6; i++) await write(interviewC, `transcript-${i}`, 'transcripts', transcriptRecord(caseC, transcriptC));
      const manyRecords = await promote(governance, { title: 'Keys', text: 'Hand over keys in writing.' }, { source_case_id: caseC, source_artifact_ids: [] });
      expect(manyRecords.body).toMatchObject({ status: 'denied', error: { error_code: 'PROMOTION.SCREEN_INCOMPLETE', retryable: false } });
      expect(manyRecords.body.error!.message).toContain('more than 5 transcripts records');
      const events = await stack.runEvents(manyRecords.body.child_run_id);
      expect(events.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunDenied']);
      expect(events[1].data).toMatchObject({ decision: 'deny', code: 'PROMOTION.SCREEN_INCOMPLETE' });

      // Case D: a facts artifact whose sources are more artifacts than the screen reads (limit 8).
      const caseD = `case-${randomUUID().slice(0, 8)}`;
      const mappingD = await as('MAPPING_AGENT', 'WRITE_MAPPING_OUTPUTS', caseD);
      const documents: ArtifactRef[] = [];
      for (let i = 0; i < 9; i++) documents.push((await put(`Exhibit ${i}: a short note about the deposit.`, await as('INTAKE_AGENT', 'WRITE_INTAKE_ARTIFACTS', caseD), 'source_document')).body);
      const factsD = (await put(JSON.stringify({ case_id: caseD, coa_version: 'coa-2026.1', source_artifact_ids: documents.map((d) => d.artifact_id), facts: [] }), mappingD, 'facts', 'application/json')).body;
      await write(mappingD, 'facts-1', 'facts', { case_id: caseD, coa_version: 'coa-2026.1', source_run_id: randomUUID(), artifact_id: factsD.artifact_id, sha256: factsD.sha256, facts: [] }, { coa_version: 'coa-2026.1' });
      const manyArtifacts = await promote(governance, { title: 'Exhibits', text: 'Number every exhibit.' }, { source_case_id: caseD, source_artifact_ids: [] });
      expect(manyArtifacts.body).toMatchObject({ status: 'denied', error: { error_code: 'PROMOTION.SCREEN_INCOMPLETE' } });
      expect(manyArtifacts.body.error!.message).toContain('more than 8 artifacts');

      // Case E: a facts artifact nested deeper than the screen reads (it skipped strings below 16 levels: a case's text
      // hidden there was never screened). Refused, never promoted half-screened.
      const caseE = `case-${randomUUID().slice(0, 8)}`;
      const mappingE = await as('MAPPING_AGENT', 'WRITE_MAPPING_OUTPUTS', caseE);
      let deep: unknown = { note: 'The tenant left the keys with the neighbour on the last day.' };
      for (let i = 0; i < 40; i++) deep = { inner: deep };
      const factsE = (await put(JSON.stringify({ case_id: caseE, coa_version: 'coa-2026.1', facts: [], deep }), mappingE, 'facts', 'application/json')).body;
      await write(mappingE, 'facts-1', 'facts', { case_id: caseE, coa_version: 'coa-2026.1', source_run_id: randomUUID(), artifact_id: factsE.artifact_id, sha256: factsE.sha256, facts: [] }, { coa_version: 'coa-2026.1' });
      const tooDeep = await promote(governance, { title: 'Keys again', text: 'Hand over keys in writing.' }, { source_case_id: caseE, source_artifact_ids: [] });
      expect(tooDeep.body).toMatchObject({ status: 'denied', error: { error_code: 'PROMOTION.SCREEN_INCOMPLETE', retryable: false } });
      expect(tooDeep.body.error!.message).toContain('nested deeper than 32 levels');
    });

    it('a caller outside the lane (MAPPING_AGENT) is denied with AuthzDecided deny and RunDenied', async () => {
      const r = await promote(await as('MAPPING_AGENT', 'PROMOTE_SHARED_KNOWLEDGE'), { title: 'Any', text: 'Any insight at all.' });
      expect(r.body).toMatchObject({ status: 'denied', error: { error_code: 'LANE.CALLER_DENIED' } });
      const events = await stack.runEvents(r.body.child_run_id);
      expect(events.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunDenied']);
      expect(events[1].data).toMatchObject({ decision: 'deny', code: 'LANE.CALLER_DENIED', lane: 'PROMOTE_SHARED_KNOWLEDGE', action: 'append:shared_playbooks' });
    });

    describe('§4.5 the promotion ticket (approval + scope) is checked by the promotion service itself', () => {
      const candidate = (title: string) => ({ title, text: 'Ask for an itemised statement in writing before any deposit dispute.' });

      it('§4.5 promotion ticket: a ticket an agent run stored through rl.artifacts.put is PROMOTION.TICKET_NOT_APPROVED, however approved it says it is', async () => {
        // A GOVERNANCE_AGENT run of case A storing its own ticket there, and a run claiming ATTORNEY_ADMIN storing one in
        // the shared plane: both well formed, approved, in scope, unused. Neither was put in by an approver.
        const own = await put(JSON.stringify(approvedTicket(caseA)), await as('GOVERNANCE_AGENT', 'PROMOTE_SHARED_KNOWLEDGE', caseA), 'promotion_ticket', 'application/json');
        const shared = await put(JSON.stringify(approvedTicket(caseA)), await as('ATTORNEY_ADMIN', 'PROMOTE_SHARED_KNOWLEDGE'), 'promotion_ticket', 'application/json');
        for (const [ticket, title] of [[own.body, 'Agent ticket'], [shared.body, 'Shared plane ticket']] as const) {
          expect(ticket).toMatchObject({ kind: 'promotion_ticket' });
          const r = await promote(governance, candidate(title), { promotion_ticket_id: ticket.artifact_id });
          await expectTicketDenied(r, 'PROMOTION.TICKET_NOT_APPROVED', title);
          expect(r.body.error!.message).toContain('not put in by an approver');
        }
      });

      it('§4.5 promotion ticket: a ticket the approver put in through its own door (rl.caller.approver.artifacts.ingest, role attorney-desk) is accepted', async () => {
        const ingested = await ingestAs(stack, APPROVER, { case_id: caseA, agent_name: 'GOVERNANCE_AGENT', kind: 'promotion_ticket', content: approvedTicket(caseA) });
        if (!ingested.ok) throw new Error(`ticket ingest refused: ${JSON.stringify(ingested.error)}`);
        const r = await promote(governance, candidate('Approved at the desk'), { promotion_ticket_id: ingested.body.artifact_id });
        expect(r.body).toMatchObject({ status: 'promoted', replayed: false });
        // The log says who approved: the ingest run of the artifact's first writer, as the approver with its role.
        const [stored] = await stack.log.read(aggregateRef('artifact', ingested.body.artifact_id));
        expect(stored.data).toMatchObject({ requested_by: APPROVER });
        const audited = (await stack.runEvents((stored.data as { ingest_run_id: string }).ingest_run_id)).find((e) => e.type === 'ArtifactIngestAudited');
        expect(audited?.data).toMatchObject({ requested_by: APPROVER, caller_role: 'attorney-desk', agent_name: 'GOVERNANCE_AGENT' });
      });

      it('§4.5 promotion ticket: a caller whose role does not approve cannot put a ticket in (ARTIFACT.KIND_DENIED), and the approver puts in nothing else', async () => {
        const byIntakeDesk = await ingestAs(stack, 'caller', { case_id: caseA, agent_name: 'GOVERNANCE_AGENT', kind: 'promotion_ticket', content: approvedTicket(caseA) });
        expect(byIntakeDesk).toMatchObject({ ok: false, error: { code: 'ARTIFACT.KIND_DENIED' } });
        // Least privilege: the approval desk supplies no case inputs.
        const formByApprover = await ingestAs(stack, APPROVER, { case_id: caseA, agent_name: 'INTAKE_AGENT', kind: 'client_intake_form', content: { name: 'Pat', matter_description: 'x' } });
        expect(formByApprover).toMatchObject({ ok: false, error: { code: 'ARTIFACT.KIND_DENIED' } });
      });

      it('a made-up ticket id, or an artifact that is not a promotion_ticket, is PROMOTION.TICKET_MISSING', async () => {
        await expectTicketDenied(await promote(governance, candidate('Missing ticket'), { promotion_ticket_id: 'ticket-42' }), 'PROMOTION.TICKET_MISSING', 'Missing ticket');
        const notATicket = await promote(governance, candidate('Transcript as ticket'), { promotion_ticket_id: transcriptA.artifact_id });
        await expectTicketDenied(notATicket, 'PROMOTION.TICKET_MISSING', 'Transcript as ticket');
        expect(notATicket.body.error!.message).toContain('of kind transcript');
      });

      it('an unapproved ticket, or one approved by a role that may not approve, is PROMOTION.TICKET_NOT_APPROVED', async () => {
        const unapproved = await ticketFor(caseA, { approved: false });
        await expectTicketDenied(await promote(governance, candidate('Unapproved'), { promotion_ticket_id: unapproved }), 'PROMOTION.TICKET_NOT_APPROVED', 'Unapproved');
        const byAgent = await ticketFor(caseA, { approver_role: 'GOVERNANCE_AGENT' });
        const r = await promote(governance, candidate('Self approved'), { promotion_ticket_id: byAgent });
        await expectTicketDenied(r, 'PROMOTION.TICKET_NOT_APPROVED', 'Self approved');
        expect(r.body.error!.message).toContain('ATTORNEY_ADMIN');
      });

      it('a target or source case outside the ticket scope is PROMOTION.TICKET_SCOPE', async () => {
        const heuristicsOnly = await ticketFor(caseA, { scope: { targets: ['shared_heuristics'], source_case_id: caseA } });
        await expectTicketDenied(await promote(governance, candidate('Wrong target'), { promotion_ticket_id: heuristicsOnly }), 'PROMOTION.TICKET_SCOPE', 'Wrong target');
        const forCaseB = await ticketFor(caseB, {}, caseA);
        await expectTicketDenied(await promote(governance, candidate('Wrong case'), { promotion_ticket_id: forCaseB }), 'PROMOTION.TICKET_SCOPE', 'Wrong case');
      });

      it('a ticket that expired before the promotion run was created is PROMOTION.TICKET_EXPIRED', async () => {
        const expired = await ticketFor(caseA, { expires_at: new Date(Date.now() - 60_000).toISOString() });
        await expectTicketDenied(await promote(governance, candidate('Expired'), { promotion_ticket_id: expired }), 'PROMOTION.TICKET_EXPIRED', 'Expired');
      });

      it('a ticket is single use: another promotion with it (or with its ticket_id re-stored) is PROMOTION.TICKET_USED, a retry of the first replays', async () => {
        const ticket_id = `ticket-${randomUUID()}`;
        const ticket = await ticketFor(caseA, { ticket_id, expires_at: new Date(Date.now() + 3_600_000).toISOString() });
        const first = { promotion_id: `promo-${randomUUID()}`, promotion_ticket_id: ticket, target: 'shared_playbooks', candidate: candidate('Single use'), source_case_id: caseA, governance };
        const used = await stack.request<PromotionResult>('rl.promotion.promote', first);
        expect(used.body).toMatchObject({ status: 'promoted', replayed: false });

        await expectTicketDenied(await promote(governance, candidate('Second use'), { promotion_ticket_id: ticket }), 'PROMOTION.TICKET_USED', 'Second use');
        // The same approval stored again as another artifact is still the same ticket.
        const copy = await ticketFor(caseA, { ticket_id, approved_by: 'Avery Counsel, Esq.' });
        expect(copy).not.toBe(ticket);
        await expectTicketDenied(await promote(governance, candidate('Copied ticket'), { promotion_ticket_id: copy }), 'PROMOTION.TICKET_USED', 'Copied ticket');

        const retried = await stack.request<PromotionResult>('rl.promotion.promote', first);
        expect(retried.body).toEqual({ ...used.body, replayed: true });
        expect(await sharedTitled('Single use')).toEqual([used.body.shared_document_id]);
      });
    });
  });

  it('§7.5 Export produces export_bundle manifest + hashes and logs export audit events; Issue 9: the manifest carries the signed audit head', async () => {
    const governance = await as('EXPORT_AGENT', 'EXPORT', caseA);
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
    // Issue 9: the manifest carries the signed audit-chain head it was made under; the chain holds that entry.
    const head = verified.manifest.audit_head!;
    const ledgerKey = (await stack.request<{ public_key_pem: string }>('rl.audit.head', {})).body.public_key_pem;
    expect(checkpointSigned(head, trustedKeys([ledgerKey]))).toBe(true);
    const chain = chainEntriesOf(await stack.log.read(aggregateRef('audit', 'chain')));
    expect(chain[head.seq - 1].entry_hash).toBe(head.entry_hash);

    const events = await stack.runEvents(r.body.child_run_id);
    expect(events.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'ExportAuthorized', 'ExportAssembled', 'ExportFinalized', 'RunCompleted']);
    expect(events[4].data).toMatchObject({ manifest: verified.manifest, manifest_sha256: manifest_ref.sha256 });
    // audit_event.schema.json: every export event names its bundle_id, and ExportFinalized its bundle.
    expect(events.slice(3, 6).map((e) => (e.data as { bundle_id?: string }).bundle_id)).toEqual(Array(3).fill(r.body.child_run_id));
    expect(events[5].data).toMatchObject({ bundle: bundle_ref, bundle_sha256, receipt_ref });
    // "export_bundles table (append)": a db_write child run of the export run.
    const recordRun = childRunId('db_write', r.body.child_run_id, 'export-bundle-record');
    expect(await types(recordRun)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'DbWriteAudited', 'RunCompleted']);
    const record = await stack.documents().collection<Record<string, unknown>>('export_bundles').find({ export_run_id: r.body.child_run_id });
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
    // Written as the store writes (a new description over new chunks; the object store refuses rollups).
    const info = await describeObject(await jetstreamManager(stack.nc), 'rl_artifacts', ref.artifact_id);
    await putObject(jetstream(stack.nc), 'rl_artifacts', ref.artifact_id, new TextEncoder().encode('forged interview note!!'), info!.metadata);
    const read = await get(ref.artifact_id, interviewA);
    expect(read.ok).toBe(false);
    expect((read.body as unknown as WireError).code).toBe('ARTIFACT.HASH_MISMATCH');

    const exported = await exportBundle(await as('EXPORT_AGENT', 'EXPORT', caseA), caseA, [transcriptA.artifact_id, ref.artifact_id]);
    expect(exported.body).toMatchObject({ status: 'denied', error: { error_code: 'ARTIFACT.HASH_MISMATCH' } });
    expect(await types(exported.body.child_run_id)).toEqual(['RunCreated', 'AuthzDecided', 'RunDenied']);
  });

  it("Case isolation: reading or exporting another case's artifact is denied", async () => {
    const interviewB = await as('INTERVIEW_AGENT', 'WRITE_INTAKE_ARTIFACTS', caseB);
    const foreign = (await put('case B private transcript', interviewB, 'transcript')).body;
    expect(foreign.case_id).toBe(caseB);

    const read = await get(foreign.artifact_id, interviewA);
    expect((read.body as unknown as WireError).code).toBe('CASE.CROSS_CASE_DENIED');
    expect((await stack.log.read(aggregateRef('artifact', foreign.artifact_id))).map((e) => e.type)).toEqual(['ArtifactStored', 'ArtifactAccessDenied']);

    const mixed = await exportBundle(await as('EXPORT_AGENT', 'EXPORT', caseA), caseA, [transcriptA.artifact_id, foreign.artifact_id]);
    expect(mixed.body).toMatchObject({ status: 'denied', error: { error_code: 'CASE.CROSS_CASE_DENIED' } });
    const events = await stack.runEvents(mixed.body.child_run_id);
    expect(events.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunDenied']);
    expect(events[1].data).toMatchObject({ decision: 'deny', code: 'CASE.CROSS_CASE_DENIED' });

    const otherCase = await exportBundle(await as('EXPORT_AGENT', 'EXPORT', caseA), caseB, [foreign.artifact_id]);
    expect(otherCase.body).toMatchObject({ status: 'denied', error: { error_code: 'CASE.CROSS_CASE_DENIED' } });

    const promotion = await promote(await as('GOVERNANCE_AGENT', 'PROMOTE_SHARED_KNOWLEDGE', caseB), { title: 'Deposits', text: 'Keep copies of every request.' });
    expect(promotion.body).toMatchObject({ status: 'denied', error: { error_code: 'CASE.CROSS_CASE_DENIED' } });
  });
});
