import { initialRunSummary, RunSummary } from '@runledger/runs';
import { decodeCursor, encodeCursor, pageRuns, percentile } from './runs-query';

const row = (i: number, over: Partial<RunSummary> = {}): RunSummary => ({
  ...initialRunSummary(`run-${String(i).padStart(3, '0')}`),
  status: 'completed', agent_name: i % 2 ? 'A' : 'B', created_at: new Date(Date.UTC(2026, 10, 24, 0, 0, i)).toISOString(), ...over,
});

describe('Issue 11 runs index: rl.runs.list paging and filters (pure)', () => {
  const rows = Array.from({ length: 25 }, (_, i) => row(i, i === 7 ? { status: 'failed', failed: true } : i === 3 ? { parent_run_id: 'run-002' } : {}));

  it('Issue 11 runs list: newest first, top-level runs only by default, cursor pages visit every run once', () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = pageRuns(rows, { limit: 10 }, cursor ? decodeCursor(cursor) : null);
      expect(page.matched).toBe(24);
      seen.push(...page.runs.map((r) => r.run_id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(24);
    expect(new Set(seen).size).toBe(24);
    expect(seen[0]).toBe('run-024');
    expect(seen).not.toContain('run-003');
  });

  it('Issue 11 runs list: equal creation times are still a total order across pages', () => {
    const same = Array.from({ length: 5 }, (_, i) => row(i, { created_at: '2026-11-24T00:00:00.000Z' }));
    const first = pageRuns(same, { limit: 2 }, null);
    const rest = pageRuns(same, { limit: 10 }, decodeCursor(first.next_cursor!));
    expect([...first.runs, ...rest.runs].map((r) => r.run_id)).toEqual(['run-004', 'run-003', 'run-002', 'run-001', 'run-000']);
  });

  it('Issue 11 runs list: failed only, agent, children and time range filters', () => {
    expect(pageRuns(rows, { failed_only: true }, null).runs.map((r) => r.run_id)).toEqual(['run-007']);
    expect(pageRuns(rows, { agent_name: 'A', include_children: true }, null).matched).toBe(12);
    const range = pageRuns(rows, { since: '2026-11-24T00:00:10.000Z', until: '2026-11-24T00:00:12.000Z' }, null);
    expect(range.runs.map((r) => r.run_id)).toEqual(['run-011', 'run-010']);
  });

  it('Issue 11 runs list: a cursor that is not ours is recognised', () => {
    expect(decodeCursor('nonsense')).toBeNull();
    expect(decodeCursor(encodeCursor({ created_at: 'x', run_id: 'y' }))).toEqual({ created_at: 'x', run_id: 'y' });
  });

  it('Issue 25 runs per agent: with by_agent, every matching run of every page is counted per agent by outcome (denied apart from failed), with the median and p95 duration of the ended ones', () => {
    const mixed = [
      row(1, { agent_name: 'A', status: 'failed', failed: true, duration_ms: 30 }), row(2, { agent_name: 'A', status: 'denied', failed: true, duration_ms: 10 }), row(3, { agent_name: 'A', duration_ms: 20 }),
      row(4, { agent_name: 'B', status: 'running' }), row(5, { agent_name: 'B', status: 'cancelled', duration_ms: 50 }), row(6, { agent_name: 'B', created_at: '2026-11-25T00:00:00.000Z' }),
    ];
    const page = pageRuns(mixed, { by_agent: true, limit: 1, until: '2026-11-25T00:00:00.000Z' }, null);
    expect(page.runs).toHaveLength(1);
    expect(page.by_agent).toEqual([
      { agent_name: 'A', runs: 3, completed: 1, failed: 1, denied: 1, cancelled: 0, open: 0, p50_ms: 20, p95_ms: 30 },
      { agent_name: 'B', runs: 2, completed: 0, failed: 0, denied: 0, cancelled: 1, open: 1, p50_ms: 50, p95_ms: 50 },
    ]);
    expect(pageRuns(mixed, {}, null)).not.toHaveProperty('by_agent');
  });

  it('Issue 25 runs per agent: percentiles by nearest rank', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    expect([percentile(hundred, 50), percentile(hundred, 95), percentile([7], 95), percentile([], 50)]).toEqual([50, 95, 7, null]);
  });
});
