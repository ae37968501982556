/**
 * Bulk cancel by filter (`runs cancel --filter …`, the console's "Cancel matching runs"): the runs the runs index
 * matches, the open ones among them cancelled one by one through rl.runs.cancel (each checked against the operator's
 * role and recorded on the log with who and why, as a single cancel is), and a summary of the outcomes.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import type { RunCancelResult, RunsListRequest, RunsListResult, RunSummary } from '../../libs/contracts/src/generated';
import { SUBJECTS } from '../../libs/contracts/src/subjects';
import { ask, CliError } from './operator';

const TERMINAL = new Set(['completed', 'failed', 'denied', 'cancelled']);
/** At most this many runs are cancelled by one bulk cancel (a narrower filter takes the rest). */
export const BULK_CANCEL_MAX = 10_000;
const PAGE = 500;
const AT_ONCE = 8;

export interface BulkSelection {
  matched: number;
  /** The matching runs without an outcome yet, newest first. */
  open: RunSummary[];
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
  let cursor: string | undefined;
  let matched = 0;
  let seen = 0;
  do {
    const page = await ask<RunsListResult>(nc, SUBJECTS.runsList, { ...filter, by_agent: false, limit: PAGE, ...(cursor ? { cursor } : {}) });
    matched = page.matched;
    seen += page.runs.length;
    open.push(...page.runs.filter((r) => !TERMINAL.has(r.status)));
    cursor = page.next_cursor ?? undefined;
  } while (cursor && seen < BULK_CANCEL_MAX);
  return { matched, open: open.slice(0, BULK_CANCEL_MAX) };
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
