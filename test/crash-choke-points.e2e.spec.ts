import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExportResult, GovernanceScope, PromotionResult } from '@runledger/contracts';
import { aggregateRef, type RecordedEvent, foldEvents } from '@runledger/event-log';
import { loadPolicy } from '@runledger/governance';
import { childRunId, evolveRun, initialRunState } from '@runledger/runs';
import { approvedTicket, putArtifact, putTicket, recordedCaller } from './support/governed-runs';
import { holdDbWriteEffect } from './support/held-effect';
import { TestStack } from './support/stack';

jest.setTimeout(180_000);

const POLICY_DIR = join(__dirname, '..', 'policy', 'contract-v1');
const policy = loadPolicy({ lanesYaml: readFileSync(join(POLICY_DIR, 'lanes.yaml'), 'utf8'), rolesYaml: readFileSync(join(POLICY_DIR, 'roles.yaml'), 'utf8') });
const TERMINAL = ['RunCompleted', 'RunFailed', 'RunDenied', 'RunCancelled'];

/**
 * Issue 21 done-when, a crash test per child-run kind: the promotion and export child runs are carried by their choke
 * point, which is SIGKILLed inside its effect (part of it done, the effect's request to db-write on the wire and held
 * there until the process is dead, then carried out);
 * after the restart the caller asks again (as RETRY.chokePoint does) and the run finishes, no effect repeated, counted
 * in the stores. The other kinds: tool_gateway and db_write (test/crash.e2e.spec.ts), agent children and a governed
 * run's parallel steps (governed-runs.pinning INV-CP-002), sessions, campaigns (campaign-controller). artifact_ingest is
 * written in one commit: there is no mid-step to crash in.
 */
describe('Issue 21 crash per child-run kind: SIGKILL the promotion and export choke points mid-effect', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await TestStack.start({ services: ['db-write', 'audit-ledger', 'promotion', 'export'], env: { REPLY_TIMEOUT_MS: '8000' } });
  });
  afterAll(async () => stack?.stop());

  const as = (agent_name: string, lane: string, case_id?: string) => recordedCaller(stack, agent_name, lane, case_id, { ...policy.versions });
  const types = async (runId: string) => (await stack.runEvents(runId)).map((e) => e.type);

  /**
   * Sends `request` on `subject` and SIGKILLs `service` while its effect's request on `effectSubject` holding `marker`
   * waits at db-write, held (support/held-effect.ts: db-write answers the service's requests before it one at a time,
   * and that one only after the kill); then db-write carries the effect out, its answer going nowhere. The caller's
   * reply dies with the process: the service cannot answer before the effect did.
   */
  async function crashMidEffect(service: string, subject: string, request: unknown, effectSubject: string, marker: string): Promise<void> {
    const held = await holdDbWriteEffect(stack, service, { subject: effectSubject, marker });
    try {
      let lostState = 'pending';
      const lost = stack.request(subject, request, 3_000).then(
        (r) => (lostState = `answered ${JSON.stringify(r.body).slice(0, 500)}`),
        () => (lostState = 'lost'),
      );
      // Bounded, with what the services said: an effect that never goes out fails here, not at jest's timeout.
      let bound: NodeJS.Timeout | undefined;
      const never = new Promise<never>((_, reject) => {
        bound = setTimeout(() => reject(new Error(`${service} never sent ${effectSubject} with ${marker}; db-write answered it ${held.passed.join(', ') || 'nothing'} before; the request ${String(lostState)}; service output:\n${stack.logs.slice(-40).join('\n')}`)), 90_000);
      });
      await Promise.race([held.reached, never]).finally(() => clearTimeout(bound));
      await stack.kill(service, 'SIGKILL');
      await held.release();
      await lost;
      expect(lostState).toBe('lost');
    } finally {
      held.dispose();
    }
  }

  /** The run is open (cut mid-step) and folds without anomalies. */
  async function expectOpen(runId: string): Promise<void> {
    const events = await stack.runEvents(runId);
    expect(events.map((e) => e.type).filter((t) => TERMINAL.includes(t))).toEqual([]);
    expect(foldEvents(evolveRun, initialRunState(), events as unknown as RecordedEvent[])).toMatchObject({ status: 'running', anomalies: [] });
  }

  it('Issue 21 promotion child run: SIGKILL promotion while its receipt is being stored (ticket used, shared document written); asked again, it finishes with one shared document, one ticket use, one PromotionAudited', async () => {
    // A case of its own (nothing in it to screen): the approver puts tickets into a case.
    const caseId = `case-${randomUUID().slice(0, 8)}`;
    const governance: GovernanceScope = await as('GOVERNANCE_AGENT', 'PROMOTE_SHARED_KNOWLEDGE', caseId);
    const ticket = await putTicket(stack, caseId, approvedTicket(caseId));
    const promotion_id = `promo-crash-${randomUUID()}`;
    // Unique and without digits: the screen refuses digit groups shaped like a phone number, as a random UUID may hold.
    const title = `Crash-safe promotion ${promotion_id.replace(/\d/g, (d) => 'ghijklmnop'[Number(d)])}`;
    const request = { promotion_id, promotion_ticket_id: ticket.artifact_id, target: 'shared_playbooks', candidate: { title, text: 'Send a written demand before filing a claim.' }, governance };
    const runId = childRunId('promotion', governance.parent_run_id, promotion_id);
    const shared = () => stack.documents().collection<Record<string, unknown>>('shared_playbooks').find({ title });

    await crashMidEffect('promotion', 'rl.promotion.promote', request, 'rl.artifacts.put', `${promotion_id}.receipt.txt`);
    await expectOpen(runId);
    expect(await shared()).toHaveLength(1);

    await stack.startService('promotion');
    const r = await stack.request<PromotionResult>('rl.promotion.promote', request, 30_000);
    expect(r.body).toMatchObject({ status: 'promoted', child_run_id: runId, replayed: false });
    // No effect twice: one shared document, the ticket used once (by this run), each artifact stored once.
    expect((await shared()).map((d) => d.id)).toEqual([r.body.shared_document_id]);
    expect((await stack.documents().collection<Record<string, unknown>>('promotion_tickets').find({ promotion_run_id: runId })).length).toBe(1);
    for (const a of r.body.output_artifacts!) expect((await stack.log.read(aggregateRef('artifact', a.artifact_id))).map((e) => e.type)).toEqual(['ArtifactStored']);
    expect(await types(runId)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'PromotionAudited', 'RunCompleted']);
  });

  it('Issue 21 export child run: SIGKILL export while its export_bundles record is being written; asked again, it finishes with one record, one db_write child run, the phases audited once', async () => {
    const caseId = `case-${randomUUID().slice(0, 8)}`;
    const source = await putArtifact(stack, await as('INTAKE_AGENT', 'WRITE_INTAKE_ARTIFACTS', caseId), 'source_document', 'A lease clause on deposits.', 'text/plain; charset=utf-8');
    const governance = await as('EXPORT_AGENT', 'EXPORT', caseId);
    const export_id = `export-crash-${randomUUID()}`;
    const request = { export_id, case_id: caseId, artifact_ids: [source.artifact_id], governance };
    const runId = childRunId('export', governance.parent_run_id, export_id);

    await crashMidEffect('export', 'rl.export.bundle', request, 'rl.db.write', runId);
    await expectOpen(runId);

    await stack.startService('export');
    const r = await stack.request<ExportResult>('rl.export.bundle', request, 30_000);
    expect(r.body).toMatchObject({ status: 'exported', child_run_id: runId, replayed: false });
    // No effect twice: one export_bundles row (an append collection), written by one db_write child run, audited once.
    const rows = await stack.documents().collection<Record<string, unknown>>('export_bundles').find({ export_run_id: runId });
    expect(rows).toHaveLength(1);
    expect(await types(childRunId('db_write', runId, 'export-bundle-record'))).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'DbWriteAudited', 'RunCompleted']);
    expect(await types(runId)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'ExportAuthorized', 'ExportAssembled', 'ExportFinalized', 'RunCompleted']);
  });
});
