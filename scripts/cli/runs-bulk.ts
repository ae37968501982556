/**
 * Bulk cancel by filter (`runs cancel --filter …`, the console's "Cancel matching runs"): the runs the runs index
 * matches, the open ones among them cancelled one by one through rl.runs.cancel (each checked against the operator's
 * role and recorded on the log with who and why, as a single cancel is), and a summary of the outcomes.
 */
import { createHash } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import type { RunCancelResult, RunsListRequest, RunsListResult, RunSummary } from '../../libs/contracts/src/generated';
import { SUBJECTS } from '../../libs/contracts/src/subjects';
import { isTerminalStatus } from '../../libs/governance/src/lifecycle/run-lifecycle';
import { ask, CliError } from './operator';
/** At most this many runs are cancelled by one bulk cancel (a narrower filter takes the rest). */
export const BULK_CANCEL_MAX = 10_000;
const PAGE = 500;
const AT_ONCE = 8;

export interface BulkSelection {
  matched: number;
  /** The matching runs without an outcome yet, newest first. */
  open: RunSummary[];
  /** What was selected, to confirm exactly it later (see selectShown). */
  shown: ShownSelection;
}

/**
 * A selection as it was shown: the runs created before `until` (just after the newest one listed) and a digest of the
 * ids of every run that matched. The runs created before `until` never lose a member (runs are not deleted) and
 * ended runs never reopen, so the same digest later means the same runs, and its open ones are among those shown.
 */
export interface ShownSelection {
  until: string;
  digest: string;
}

export interface BulkCancelSummary {
  matched: number;
  requested: string[];
  already_ended: string[];
  refused: Array<{ run_id: string; error: string }>;
}

/** Every run the filter matches (all pages), keeping the open ones. */
export async function selectOpenRuns(nc: NatsConnection, filter: RunsListRequest): Promise<BulkSelection> {
  const open: RunSummary[] = [];
  const ids: string[] = [];
  let newest = 0;
  let cursor: string | undefined;
  let matched = 0;
  do {
    const page = await ask<RunsListResult>(nc, SUBJECTS.runsList, { ...filter, by_agent: false, limit: PAGE, ...(cursor ? { cursor } : {}) });
    matched = page.matched;
    for (const r of page.runs) {
      ids.push(r.run_id);
      newest = Math.max(newest, Date.parse(r.created_at ?? '') || 0);
    }
    open.push(...page.runs.filter((r) => !isTerminalStatus(r.status)));
    cursor = page.next_cursor ?? undefined;
  } while (cursor && ids.length < BULK_CANCEL_MAX);
  const until = new Date(Math.min(newest + 1, filter.until ? Date.parse(filter.until) : Infinity)).toISOString();
  const digest = createHash('sha256').update([...ids].sort().join('\n')).digest('hex').slice(0, 32);
  return { matched, open: open.slice(0, BULK_CANCEL_MAX), shown: { until, digest } };
}

/**
 * The open runs of a selection shown before (`shown`), to cancel exactly those: the filter again, limited to runs
 * created before its `until`; null when the runs it matches are not the ones shown (one indexed since, say).
 */
export async function selectShown(nc: NatsConnection, filter: RunsListRequest, shown: ShownSelection): Promise<BulkSelection | null> {
  const again = await selectOpenRuns(nc, { ...filter, until: shown.until });
  return again.shown.digest === shown.digest ? again : null;
}

/** `--selection` / the console's hidden field: until and digest in one token. */
export const selectionToken = (s: ShownSelection): string => `${s.until}/${s.digest}`;

export function parseSelectionToken(token: string): ShownSelection | null {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)\/([0-9a-f]{32})$/.exec(token);
  return m ? { until: m[1]!, digest: m[2]! } : null;
}

/** Cancels each run through rl.runs.cancel, a few at a time; a refusal is counted, never stops the rest. */
export async function cancelEach(nc: NatsConnection, runIds: string[], reason: string, requestedBy: string, matched: number): Promise<BulkCancelSummary> {
  const summary: BulkCancelSummary = { matched, requested: [], already_ended: [], refused: [] };
  for (let i = 0; i < runIds.length; i += AT_ONCE) {
    await Promise.all(runIds.slice(i, i + AT_ONCE).map(async (run_id) => {
      try {
        const r = await ask<RunCancelResult>(nc, SUBJECTS.runsCancel, { run_id, reason, requested_by: requestedBy });
        (r.outcome === 'already_ended' ? summary.already_ended : summary.requested).push(run_id);
      } catch (err) {
        if (!(err instanceof CliError)) throw err;
        summary.refused.push({ run_id, error: err.message });
      }
    }));
  }
  return summary;
}

/** The filter said back in words (for the default reason and the dry run). */
export function describeFilter(filter: RunsListRequest): string {
  const parts = Object.entries(filter).filter(([k, v]) => v !== undefined && v !== false && k !== 'limit' && k !== 'cursor' && k !== 'by_agent').map(([k, v]) => `${k}=${String(v)}`);
  return parts.join(' ') || 'every run';
}

export function summaryText(s: BulkCancelSummary): string {
  const refused = s.refused.length ? `; ${s.refused.length} refused (${[...new Set(s.refused.map((r) => r.error))].slice(0, 3).join(' | ')})` : '';
  return `cancel recorded for ${s.requested.length} run(s) (their workers stop them at their next step); ${s.already_ended.length} had already ended${refused}`;
}
