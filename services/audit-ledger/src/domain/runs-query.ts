import type { RunsListRequest, RunsListResult, RunsPerAgent } from '@runledger/contracts';
import type { RunSummary } from '@runledger/runs';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

/** Newest first; ties by run id (descending) so a page boundary is a total order. */
function compare(a: RunSummary, b: RunSummary): number {
  const byTime = (b.created_at ?? '').localeCompare(a.created_at ?? '');
  return byTime !== 0 ? byTime : b.run_id.localeCompare(a.run_id);
}

/** The position after the last row of a page; opaque to callers. */
export function encodeCursor(row: Pick<RunSummary, 'created_at' | 'run_id'>): string {
  return Buffer.from(JSON.stringify([row.created_at ?? '', row.run_id])).toString('base64url');
}

/** Null when the cursor was not made by encodeCursor. */
export function decodeCursor(cursor: string): { created_at: string; run_id: string } | null {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string') return { created_at: v[0], run_id: v[1] };
  } catch {
    // falls through: not ours
  }
  return null;
}

/** The equality filters a store can apply itself; the rest (time range, cursor) is applied here. */
export function storeFilter(q: RunsListRequest): Partial<Record<keyof RunSummary, unknown>> {
  const f: Partial<Record<keyof RunSummary, unknown>> = {};
  if (q.status) f.status = q.status;
  if (q.agent_name) f.agent_name = q.agent_name;
  if (q.run_kind) f.run_kind = q.run_kind;
  if (q.case_id) f.case_id = q.case_id;
  if (q.user_id) f.user_id = q.user_id;
  if (q.root_run_id) f.root_run_id = q.root_run_id;
  if (q.failed_only) f.failed = true;
  if (!q.include_children && !q.root_run_id) f.parent_run_id = null;
  return f;
}

/** The fields a text search looks in: what an operator may remember of a run. */
const TEXT_FIELDS = ['run_id', 'agent_name', 'run_kind', 'case_id', 'user_id', 'error_code', 'error_message'] as const;

/** Case-insensitive substring over TEXT_FIELDS; null when the query has no text. */
function textMatcher(text: string | undefined): ((r: RunSummary) => boolean) | null {
  const needle = text?.trim().toLowerCase();
  if (!needle) return null;
  return (r) => TEXT_FIELDS.some((f) => typeof r[f] === 'string' && (r[f] as string).toLowerCase().includes(needle));
}

const ENDED = new Set(['completed', 'failed', 'denied', 'cancelled']);

/** The nearest-rank percentile of sorted values; null for none. */
export function percentile(sorted: readonly number[], p: number): number | null {
  return sorted.length ? sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] : null;
}

/**
 * Runs per agent by outcome, with the median and 95th percentile duration of the ended ones (the console's and
 * `runs list --by-agent`'s summary of a search), agents by name.
 */
export function perAgent(rows: readonly RunSummary[]): RunsPerAgent[] {
  const by = new Map<string | null, { counts: RunsPerAgent; durations: number[] }>();
  for (const r of rows) {
    const agent = by.get(r.agent_name) ?? { counts: { agent_name: r.agent_name, runs: 0, completed: 0, failed: 0, denied: 0, cancelled: 0, open: 0, p50_ms: null, p95_ms: null }, durations: [] };
    agent.counts.runs++;
    if (ENDED.has(r.status)) {
      agent.counts[r.status as 'completed' | 'failed' | 'denied' | 'cancelled']++;
      if (typeof r.duration_ms === 'number') agent.durations.push(r.duration_ms);
    } else agent.counts.open++;
    by.set(r.agent_name, agent);
  }
  return [...by.values()].map(({ counts, durations }) => {
    durations.sort((a, b) => a - b);
    return { ...counts, p50_ms: percentile(durations, 50), p95_ms: percentile(durations, 95) };
  }).sort((a, b) => (a.agent_name ?? '').localeCompare(b.agent_name ?? ''));
}

/** One page of the runs index: filters, time range, newest first, cursor paging. Pure. */
export function pageRuns(rows: readonly RunSummary[], q: RunsListRequest, cursor: { created_at: string; run_id: string } | null): RunsListResult {
  const filter = storeFilter(q);
  const since = q.since ? Date.parse(q.since) : -Infinity;
  const until = q.until ? Date.parse(q.until) : Infinity;
  const text = textMatcher(q.text);
  const matched = rows.filter((r) => {
    for (const [k, v] of Object.entries(filter)) {
      const actual = r[k as keyof RunSummary];
      if (v === null ? actual !== null && actual !== undefined : actual !== v) return false;
    }
    const created = r.created_at ? Date.parse(r.created_at) : NaN;
    if ((q.since || q.until) && !(created >= since && created < until)) return false;
    return text ? text(r) : true;
  }).sort(compare);
  const start = cursor ? matched.findIndex((r) => compare(r, { ...r, created_at: cursor.created_at, run_id: cursor.run_id }) > 0) : 0;
  const limit = Math.min(MAX_PAGE_SIZE, q.limit ?? DEFAULT_PAGE_SIZE);
  const from = start < 0 ? matched.length : start;
  const page = matched.slice(from, from + limit);
  const more = from + limit < matched.length;
  return { runs: page, matched: matched.length, next_cursor: more ? encodeCursor(page[page.length - 1]) : null, ...(q.by_agent ? { by_agent: perAgent(matched) } : {}) };
}
