/**
 * `runs cancel --filter …`: a dry run (how many open runs match, and the selection's token) unless --yes; then one
 * cancel per run and a summary. `--yes --selection TOKEN` cancels exactly the runs the dry run showed, or nothing
 * (exit 1) if the filter now matches others.
 */
import type { RunsListRequest } from '../../libs/contracts/src/generated';
import { duration, printable, table, time } from './format';
import { CliError, json, type ParsedArgs, str, withConnection } from './operator';
import { BULK_CANCEL_MAX, cancelEach, describeFilter, parseSelectionToken, selectionToken, selectOpenRuns, selectShown, summaryText } from './runs-bulk';

export function bulkCancel(p: ParsedArgs, filter: RunsListRequest, usage: string): Promise<number> {
  if (p.positional.length) throw new CliError(`runs cancel --filter takes no RUN_ID\n${usage}`, 2);
  if (p.flags.has('wait')) throw new CliError(`runs cancel --filter does not wait; follow the runs with runs list or runs tail\n${usage}`, 2);
  if (describeFilter(filter) === 'every run') throw new CliError(`runs cancel --filter needs at least one filter (--agent, --status, --since …)\n${usage}`, 2);
  const reason = str(p, 'reason') ?? `bulk cancel by filter: ${describeFilter(filter)}`;
  const token = str(p, 'selection');
  const shown = token === undefined ? undefined : parseSelectionToken(token);
  if (shown === null) throw new CliError(`--selection takes the token a dry run printed\n${usage}`, 2);
  if (shown && !p.flags.has('yes')) throw new CliError(`--selection goes with --yes\n${usage}`, 2);
  return withConnection(p.conn, async (nc) => {
    const selected = shown ? await selectShown(nc, filter, shown) : await selectOpenRuns(nc, filter);
    if (!selected) throw new CliError(`the runs matching ${describeFilter(filter)} are not the ones the dry run showed (one was indexed since); nothing was cancelled: run the dry run again`, 1);
    const { matched, open } = selected;
    if (!p.flags.has('yes')) {
      if (p.flags.has('json')) return (json({ dry_run: true, matched, open: open.length, run_ids: open.map((r) => r.run_id), selection: selectionToken(selected.shown) }), 0);
      process.stdout.write(`${matched} run(s) match ${describeFilter(filter)}; ${open.length} of them have no outcome yet and would be cancelled${open.length >= BULK_CANCEL_MAX ? ` (at most ${BULK_CANCEL_MAX} at once)` : ''}.\n`);
      if (open.length) {
        process.stdout.write(table(['RUN', 'AGENT', 'STATUS', 'CREATED (UTC)', 'AGE'], open.slice(0, 20).map((r) => [r.run_id, r.agent_name ?? '-', r.status, time(r.created_at), r.created_at ? duration(Date.now() - Date.parse(r.created_at)) : '-'])));
        if (open.length > 20) process.stdout.write(`… and ${open.length - 20} more\n`);
      }
      process.stdout.write(`Nothing was cancelled: add --yes --selection ${selectionToken(selected.shown)} to cancel exactly these (--yes alone: whatever matches then).\n`);
      return 0;
    }
    const summary = await cancelEach(nc, open.map((r) => r.run_id), reason, process.env.USER ?? 'operator', matched);
    if (p.flags.has('json')) json(summary);
    else {
      process.stdout.write(`${printable(summaryText(summary))}\n`);
      for (const r of summary.refused) process.stdout.write(`${printable(`refused ${r.run_id}: ${r.error}`)}\n`);
    }
    return summary.refused.length ? 1 : 0;
  });
}
