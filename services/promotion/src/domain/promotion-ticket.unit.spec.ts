import type { CallerGrants } from '@runledger/governance';
import { checkApprover, checkTicket, checkUnused, parseTicket, TicketProvenance, TicketUse } from './promotion-ticket';

const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
const TICKET = { ticket_id: 't-1', approved: true, approved_by: 'Avery Counsel', approver_role: 'ATTORNEY_ADMIN', approved_at: '2026-05-01T10:00:00Z', scope: { targets: ['shared_playbooks'], source_case_id: 'case-a' } };
const promotion: { target: 'shared_playbooks'; source_case_id: string | null; at: string } = { target: 'shared_playbooks', source_case_id: 'case-a', at: '2026-05-02T00:00:00Z' };
const judge = (ticket: Record<string, unknown>, p = promotion) => {
  const parsed = parseTicket('promotion_ticket', bytes(ticket));
  return parsed.ok ? checkTicket(parsed.ticket, p) : parsed;
};

describe('promotion ticket rules (§4.5 approval + scope)', () => {
  it('accepts an ATTORNEY_ADMIN approval covering the target and source case, before it expires', () => {
    expect(judge(TICKET)).toEqual({ ok: true });
    expect(judge({ ...TICKET, expires_at: '2026-05-03T00:00:00Z' })).toEqual({ ok: true });
  });

  it('fails closed on anything it cannot read as an approval', () => {
    expect(parseTicket('transcript', bytes(TICKET))).toMatchObject({ code: 'PROMOTION.TICKET_MISSING' });
    expect(parseTicket('promotion_ticket', new TextEncoder().encode('not json'))).toMatchObject({ code: 'PROMOTION.TICKET_MISSING' });
    expect(judge({ ...TICKET, ticket_id: ' ' })).toMatchObject({ code: 'PROMOTION.TICKET_MISSING' });
    expect(judge({ ...TICKET, expires_at: 'next week' })).toMatchObject({ code: 'PROMOTION.TICKET_MISSING' });
    expect(judge({ ...TICKET, approved: 'true' })).toMatchObject({ code: 'PROMOTION.TICKET_NOT_APPROVED' });
    expect(judge({ ...TICKET, approved_at: undefined })).toMatchObject({ code: 'PROMOTION.TICKET_NOT_APPROVED' });
  });

  it('a ticket naming no source case covers only promotions derived from no case', () => {
    const shared = { ...TICKET, scope: { targets: ['shared_playbooks'] } };
    expect(judge(shared)).toMatchObject({ code: 'PROMOTION.TICKET_SCOPE' });
    expect(judge(shared, { ...promotion, source_case_id: null })).toEqual({ ok: true });
  });

  it('expires at or before the run creation time', () => {
    expect(judge({ ...TICKET, expires_at: promotion.at })).toMatchObject({ code: 'PROMOTION.TICKET_EXPIRED' });
  });

  it('single use: only the run that recorded the use may go on', () => {
    const use: TicketUse = { ticket_id: 't-1', ticket_artifact_id: 'art-1', promotion_id: 'p-1', promotion_run_id: 'run-1', target: 'shared_playbooks', source_case_id: 'case-a' };
    expect(checkUnused('t-1', undefined, 'run-2')).toEqual({ ok: true });
    expect(checkUnused('t-1', use, 'run-1')).toEqual({ ok: true });
    expect(checkUnused('t-1', use, 'run-2')).toMatchObject({ code: 'PROMOTION.TICKET_USED' });
  });

  describe('§4.5 promotion ticket: only a ticket an approver put in counts', () => {
    const ticketRule = { media_types: ['application/json'], max_bytes: 16384, json_object: true };
    const grants: CallerGrants = {
      version: 'callers-test', kinds: { promotion_ticket: ticketRule },
      roles: {
        'attorney-desk': { name: 'attorney-desk', acts_as: 'ATTORNEY_ADMIN', cases: ['case-*'], agents: { GOVERNANCE_AGENT: ['promotion_ticket'] } },
        'intake-desk': { name: 'intake-desk', cases: ['case-*'], agents: { INTAKE_AGENT: ['client_intake_form'] } },
      },
      callers: { approver: 'attorney-desk', caller: 'intake-desk' },
    };
    const ingested = (over: Partial<NonNullable<TicketProvenance['ingest']>> = {}, role = 'attorney-desk'): TicketProvenance => ({
      stored: { requested_by: 'approver', ingest_run_id: 'run-1' },
      ingest: { run_kind: 'artifact_ingest', status: 'completed', audited: [{ artifact_ref: { artifact_id: 'art-1' }, requested_by: 'approver', caller_role: role }], ...over },
    });
    const judgeApprover = (log: TicketProvenance) => checkApprover('t-1', 'art-1', log, grants);

    it('accepts a ticket a completed ingest by an approver role stored', () => {
      expect(judgeApprover(ingested())).toEqual({ ok: true });
    });

    it('refuses a ticket an agent run stored through rl.artifacts.put, however worded', () => {
      const r = judgeApprover({ stored: { agent_name: 'GOVERNANCE_AGENT', lane: 'PROMOTE_SHARED_KNOWLEDGE', parent_run_id: 'run-9' } });
      expect(r).toMatchObject({ code: 'PROMOTION.TICKET_NOT_APPROVED' });
      expect(!r.ok && r.reason).toContain('a GOVERNANCE_AGENT run stored it');
      expect(judgeApprover({ stored: undefined })).toMatchObject({ code: 'PROMOTION.TICKET_NOT_APPROVED' });
    });

    it('refuses when the ingest run is missing, forged (read as none), not completed, of another kind, or stored another artifact', () => {
      expect(judgeApprover({ stored: { ingest_run_id: 'run-1' } })).toMatchObject({ code: 'PROMOTION.TICKET_NOT_APPROVED' });
      expect(judgeApprover(ingested({ status: 'denied' }))).toMatchObject({ code: 'PROMOTION.TICKET_NOT_APPROVED' });
      expect(judgeApprover(ingested({ run_kind: 'agent' }))).toMatchObject({ code: 'PROMOTION.TICKET_NOT_APPROVED' });
      expect(judgeApprover(ingested({ audited: [{ artifact_ref: { artifact_id: 'art-2' }, caller_role: 'attorney-desk' }] }))).toMatchObject({ code: 'PROMOTION.TICKET_NOT_APPROVED' });
    });

    it('refuses a role the current grants do not make an approver (never was, or since removed)', () => {
      expect(judgeApprover(ingested({}, 'intake-desk'))).toMatchObject({ code: 'PROMOTION.TICKET_NOT_APPROVED' });
      const removed = judgeApprover(ingested({}, 'retired-desk'));
      expect(!removed.ok && removed.reason).toContain('retired-desk is not in the caller grants callers-test');
    });
  });
});
