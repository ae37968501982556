import { checkAuditCoverage, CoverageEvent } from './coverage';

const open = (run_id: string, at: string): CoverageEvent[] => [
  { run_id, type: 'RunCreated', data: { run_kind: 'tool_gateway' }, recorded_at: at },
  { run_id, type: 'AuthzDecided', data: { decision: 'allow' }, recorded_at: at },
  { run_id, type: 'RunStarted', recorded_at: at },
];

describe('§6 coverage: runs left open', () => {
  it('§6 a run still under way is in progress; one with no event for longer than the threshold is a violation', () => {
    const report = checkAuditCoverage([...open('fresh', '2026-01-01T00:59:00Z'), ...open('stale', '2026-01-01T00:00:00Z')], {
      allowInProgress: true, staleAfter: { now: '2026-01-01T01:00:00Z', ms: 15 * 60_000 },
    });
    expect(report.in_progress).toEqual(['fresh']);
    expect(report.violations).toEqual([{ run_id: 'stale', missing: 'terminal outcome (stale: no event since 2026-01-01T00:00:00Z)' }]);
    expect(report.ok).toBe(false);
  });
});
