/**
 * The console's bulk cancel: the runs page's filter, posted, shows how many open runs it matches (nothing is
 * cancelled yet); confirming cancels each through rl.runs.cancel (as `runs cancel --filter --yes` does) and the
 * runs page comes back with the summary.
 */
import { time } from '../format';
import { CliError } from '../operator';
import { describeFilter, parseSelectionToken, selectionToken, summaryText } from '../runs-bulk';
import type { ConsoleApi } from './api';
import { esc, hidden, page, postForm, result, table } from './html';
import { searchRequest } from './runs-pages';

/** The search parameters a bulk cancel keeps (the filter, not the page). */
const FILTER_PARAMS = ['text', 'status', 'agent', 'kind', 'case', 'user', 'since', 'until', 'failed', 'all'];

export function filterOf(form: URLSearchParams): URLSearchParams {
  const q = new URLSearchParams();
  for (const name of FILTER_PARAMS) {
    const v = form.get(name);
    if (v) q.set(name, v);
  }
  return q;
}

/** The runs page's "cancel matching runs" form: the current filter, hidden; a reason. */
export function bulkCancelForm(q: URLSearchParams, csrf: string): string {
  const filter = filterOf(q);
  if (![...filter.keys()].length) return '';
  const fields = [...filter.entries()].map(([k, v]) => hidden(k, v)).join('') + '<label>Reason <input name="reason" maxlength="500"></label> ';
  return `<h2>Cancel matching runs</h2>${postForm('/runs/cancel-matching', csrf, fields, 'Cancel matching open runs…', 'inline bulk-cancel')}`;
}

/**
 * POST /runs/cancel-matching: without `confirm`, the count and a confirm button; with it, the cancels (a banner). The
 * confirm carries the selection it showed (`selection`: runs created before a cutoff, and a digest of their ids) and
 * cancels exactly those runs: if the filter now matches others (one indexed since), nothing is cancelled and the new
 * selection is shown to confirm again.
 */
export async function bulkCancel(api: ConsoleApi, form: URLSearchParams, csrf: string): Promise<{ banner: string; query: URLSearchParams } | { page: string }> {
  const filter = filterOf(form);
  const query = new URLSearchParams(filter);
  let request;
  try {
    request = { ...searchRequest(filter), by_agent: false };
    delete request.limit;
  } catch (err) {
    if (err instanceof CliError) return { banner: result(false, err.message), query };
    throw err;
  }
  const words = describeFilter(request);
  if (words === 'every run') return { banner: result(false, 'a bulk cancel needs at least one filter'), query };
  const reason = form.get('reason')?.trim() || `bulk cancel by filter: ${words}`;
  const confirming = form.get('confirm') === 'yes';
  const shown = confirming ? parseSelectionToken(form.get('selection') ?? '') : null;
  if (confirming && !shown) return { banner: result(false, 'a bulk cancel confirms the selection it showed: count the matching runs again'), query };
  const confirmed = shown ? await api.selectShown(request, shown) : null;
  const selection = confirmed ?? await api.selectOpen(request);
  const { matched, open } = selection;
  if (!confirmed) {
    const fields = [...filter.entries()].map(([k, v]) => hidden(k, v)).join('') + hidden('reason', reason) + hidden('confirm', 'yes') + hidden('selection', selectionToken(selection.shown));
    const rows = open.slice(0, 50).map((r) => [`<a href="/runs/${esc(r.run_id)}">${esc(r.run_id)}</a>`, esc(r.agent_name ?? '-'), esc(r.status), esc(time(r.created_at))]);
    const changed = confirming ? '<p id="bulk-changed" class="error">The matching runs changed since they were shown: nothing was cancelled. These match now.</p>' : '';
    return {
      page: page('Cancel matching runs', `${changed}<p id="bulk-count">${matched} run(s) match ${esc(words)}; <b>${open.length}</b> have no outcome yet and would be cancelled, each recorded with you and the reason “${esc(reason)}”.</p>
${table(['Run', 'Agent', 'Status', 'Created (UTC)'], rows, 'bulk-runs')}${open.length > 50 ? `<p>… and ${open.length - 50} more</p>` : ''}
${open.length ? postForm('/runs/cancel-matching', csrf, fields, `Cancel ${open.length} run(s)`, 'inline bulk-confirm') : ''} <a href="/?${esc(query.toString())}">back</a>`),
    };
  }
  const summary = await api.cancelEach(open.map((r) => r.run_id), reason, matched);
  const refused = summary.refused.map((r) => `<br>${esc(r.run_id)}: ${esc(r.error)}`).join('');
  return { banner: `<p id="result" class="${summary.refused.length ? 'error' : 'ok'}">${esc(summaryText(summary))}${refused}</p>`, query };
}
