import { auditRowOpen, withAuditEvent, type AuditEventRow } from './audit-chain';

const event = (event_id: string, type: string, chain_seq: number): AuditEventRow => ({ event_id, run_id: 'run-1', root_run_id: 'root-1', type, chain_seq, recorded_at: '2026-11-25T00:00:00.000Z', data: {} });

describe('audit_events rows: one per run, its chained events in chain order', () => {
  it('collects a run\'s chained events in order, once each (a redelivered event leaves the row as it was)', () => {
    const created = withAuditEvent(null, event('e1', 'RunCreated', 7));
    const authorised = withAuditEvent(created, event('e2', 'AuthzDecided', 9));
    expect(authorised).toEqual({ run_id: 'run-1', root_run_id: 'root-1', events: [event('e1', 'RunCreated', 7), event('e2', 'AuthzDecided', 9)] });
    expect(withAuditEvent(authorised, event('e1', 'RunCreated', 7))).toBe(authorised);
  });

  it('a row stays open until the run\'s terminal event is in', () => {
    const open = withAuditEvent(null, event('e1', 'RunCreated', 1));
    expect(auditRowOpen(open)).toBe(true);
    expect(auditRowOpen(withAuditEvent(open, event('e2', 'RunCompleted', 2)))).toBe(false);
  });
});
