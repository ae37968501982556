/** The console's run pages: search (text, time range, status, agent, case, user; paged) and one run with its waterfall. */
import { randomUUID } from 'node:crypto';
import type { RunsListRequest } from '../../../libs/contracts/src/generated';
import { time } from '../format';
import { CliError } from '../operator';
import { exchangeOf, RUN_STATUSES, RUNS_PAGE_MAX, type RunNode } from '../runs';
import type { ConsoleApi } from './api';
import { duration, esc, hidden, json, page, postForm, table, traceLink } from './html';
import { barsOf, llmAttempt, waterfall } from './waterfall';
import { bulkCancelForm } from './bulk-pages';
import { liveBlock } from './live';
import { isTerminalStatus } from '../../../libs/governance/src/lifecycle/run-lifecycle';


/** A form's `datetime-local` (no zone: read as UTC, as the page says) or a full ISO time; null when it is neither. */
export function utcTime(v: string): string | null {
  const t = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v : `${v}Z`);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/** The rl.runs.list request a search form asks for; a value the form cannot mean is a usage error said on the page. */
export function searchRequest(q: URLSearchParams): RunsListRequest {
  const r: RunsListRequest = {};
  const status = q.get('status');
  if (status) {
    if (!RUN_STATUSES.includes(status)) throw new CliError(`status must be one of ${RUN_STATUSES.join(', ')}`, 2);
    r.status = status as RunsListRequest['status'];
  }
  const map = { text: 'text', agent: 'agent_name', case: 'case_id', user: 'user_id', kind: 'run_kind', cursor: 'cursor' } as const;
  for (const [param, field] of Object.entries(map)) {
    const v = q.get(param)?.trim();
    if (v) r[field] = v;
  }
  for (const name of ['since', 'until'] as const) {
    const v = q.get(name);
    if (!v) continue;
    const iso = utcTime(v);
    if (!iso) throw new CliError(`${name} must be a date and time, e.g. 2026-11-24T07:00`, 2);
    r[name] = iso;
  }
  if (q.get('failed')) r.failed_only = true;
  if (q.get('all')) r.include_children = true;
  const limit = Number(q.get('limit') ?? 50);
  if (!Number.isInteger(limit) || limit < 1 || limit > RUNS_PAGE_MAX) throw new CliError(`limit must be a whole number from 1 to ${RUNS_PAGE_MAX}`, 2);
  r.limit = limit;
  r.by_agent = true;
  return r;
}

function searchForm(q: URLSearchParams): string {
  const input = (name: string, label: string, type = 'text') => `<label>${label} <input type="${type}" name="${name}" value="${esc(q.get(name) ?? '')}"></label> `;
  const check = (name: string, label: string) => `<label><input type="checkbox" name="${name}" value="1"${q.get(name) ? ' checked' : ''}> ${label}</label> `;
  const statuses = ['', ...RUN_STATUSES].map((s) => `<option value="${esc(s)}"${(q.get('status') ?? '') === s ? ' selected' : ''}>${esc(s || 'any')}</option>`).join('');
  return `<form id="search" method="get" action="/">${input('text', 'Text')}<label>Status <select name="status">${statuses}</select></label> ${input('agent', 'Agent')}${input('kind', 'Kind')}${input('case', 'Case')}${input('user', 'User')}
<br>${input('since', 'From (UTC)', 'datetime-local')}${input('until', 'to (UTC)', 'datetime-local')}${check('failed', 'failed or denied only')}${check('all', 'child runs too')}
<label>Page size <input type="number" name="limit" min="1" max="500" value="${esc(q.get('limit') ?? '50')}"></label> <button type="submit">Search</button> <span class="note">(the results update live)</span></form>`;
}

export async function runsPage(api: ConsoleApi, q: URLSearchParams, csrf: string, banner = ''): Promise<string> {
  const form = searchForm(q);
  let results: string;
  try {
    results = await runsResults(api, q);
  } catch (err) {
    if (err instanceof CliError) return page('Runs', `${banner}${form}<p class="error" id="error">${esc(err.message)}</p>`);
    throw err;
  }
  const feed = new URLSearchParams(q);
  feed.set('view', 'runs');
  return page('Runs', `${banner}${form}${liveBlock(`/live?${feed.toString()}`, results)}${bulkCancelForm(q, csrf)}`);
}

/** The search's results (the live block of the runs page): counts, the page of runs, paging, per agent. */
export async function runsResults(api: ConsoleApi, q: URLSearchParams): Promise<string> {
  const found = await api.runs(searchRequest(q));
  const rows = found.runs.map((r) => [
    `<a href="/runs/${esc(r.run_id)}">${esc(r.run_id)}</a>`, esc(r.agent_name ?? '-'), esc(r.run_kind ?? '-'), `<span class="${esc(r.status)}">${esc(r.status)}</span>`,
    esc(time(r.created_at)), esc(duration(r.duration_ms)), esc(r.case_id ?? r.user_id ?? '-'), r.error_code ? `${esc(r.error_code)}: ${esc(r.error_message ?? '')}` : '',
  ]);
  const more = new URLSearchParams(q);
  more.delete('cursor');
  const first = q.get('cursor') ? `<a id="first" href="/?${esc(more.toString())}">first page</a> ` : '';
  if (found.next_cursor) more.set('cursor', found.next_cursor);
  const next = found.next_cursor ? `<a id="next" href="/?${esc(more.toString())}">next page</a>` : '';
  const agents = (found.by_agent ?? []).map((a) => [esc(a.agent_name ?? '-'), ...[a.runs, a.completed, a.failed, a.denied, a.cancelled, a.open].map(String), esc(duration(a.p50_ms)), esc(duration(a.p95_ms))]);
  return `<p id="matched">${found.matched} matching run(s)</p>${table(['Run', 'Agent', 'Kind', 'Status', 'Created (UTC)', 'Duration', 'Case / user', 'Error'], rows, 'runs')}<p>${first}${next}</p>
<h2>Matching runs per agent</h2>${table(['Agent', 'Runs', 'Completed', 'Failed', 'Denied', 'Cancelled', 'Open', 'p50', 'p95'], agents, 'per-agent')}`;
}

/** An ended run's duration from its own events, while the runs index has not folded its end yet. */
function spanOf(run: RunNode['run']): number | null {
  const [first, last] = [run.events[0], run.events[run.events.length - 1]];
  return first && isTerminalStatus(run.status) ? Date.parse(last.recorded_at) - Date.parse(first.recorded_at) : null;
}

/** The policy versions the run was pinned to and, for a fork, where it comes from (its RunCreated). */
function pins(events: RunNode['run']['events']): string {
  const created = events.find((e) => e.type === 'RunCreated')?.data as { policy_versions?: Record<string, string>; forked_from?: { run_id: string; checkpoint: string } } | undefined;
  const pinned = created?.policy_versions ? ` · policies <span id="policies">${esc(Object.values(created.policy_versions).join(', '))}</span>` : '';
  const from = created?.forked_from;
  return pinned + (from ? ` · <span id="forked-from">forked from run <a href="/runs/${esc(from.run_id)}">${esc(from.run_id)}</a> at step ${esc(from.checkpoint)}</span>` : '');
}

/** Fork an ended run from one of its checkpoints (its StepCompleted step ids) under the current or another policy version. */
function forkForm(runId: string, events: RunNode['run']['events'], csrf: string): string {
  const steps = events.filter((e) => e.type === 'StepCompleted').map((e) => String((e.data as { step_id?: unknown }).step_id ?? ''));
  if (!steps.length) return '';
  const options = steps.map((s) => `<option value="${esc(s)}">${esc(s)}</option>`).join('');
  // A fresh request id per page: submitting the same form twice forks once (rl.runs.fork is idempotent on it).
  const fields = `<label>From step <select name="from_step">${options}</select></label> <label>Lanes version <input name="lanes" placeholder="current" maxlength="64"></label> `
    + `<label>Roles version <input name="roles" placeholder="current" maxlength="64"></label> ${hidden('request_id', randomUUID())}`;
  return `<h2>Fork</h2><p>Runs the rest of this run again from a checkpoint (its steps up to there are restored from the log, not run again) under the policy version you name, or the current one; the page waits for the fork's outcome.</p>${postForm(`/runs/${runId}/fork`, csrf, fields, 'Fork run', 'inline fork')}`;
}

function events(node: RunNode): string {
  const start = node.run.events[0] ? Date.parse(node.run.events[0].recorded_at) : 0;
  const rows = node.run.events.map((e) => [esc(`+${duration(Date.parse(e.recorded_at) - start)}`), esc(e.type), json(e.data, JSON.stringify(e.data ?? null).slice(0, 120))]);
  const own = `<details class="events" data-run="${esc(node.run.run_id)}"${node.children.length || !node.run.run?.parent_run_id ? ' open' : ''}><summary>${esc(node.run.run?.agent_name ?? '-')} · ${esc(node.run.run?.run_kind ?? '-')} · ${esc(node.run.run_id)}: ${node.run.events.length} event(s)</summary>${table(['At', 'Event', 'Data'], rows)}</details>`;
  return own + node.children.map(events).join('');
}

/** One run: what it was asked and answered, its waterfall, its events (each opens in full), and what an operator may do. */
export async function runPage(api: ConsoleApi, runId: string, csrf: string, banner = ''): Promise<string> {
  let tree: RunNode;
  try {
    tree = await api.tree(runId);
  } catch (err) {
    if (err instanceof CliError) return page('Run not found', `${banner}<p class="error" id="error">${esc(err.message)}</p>`);
    throw err;
  }
  const actions = isTerminalStatus(tree.run.status)
    ? forkForm(runId, tree.run.events, csrf)
    : `<h2>Actions</h2>${postForm(`/runs/${runId}/cancel`, csrf, '<label>Reason <input name="reason" maxlength="500"></label> ', 'Cancel run', 'inline cancel')}`;
  return page(`Run ${runId}`, `${banner}${liveBlock(`/live?view=run&id=${runId}`, runBody(tree))}${actions}`);
}

/** The model attempts of the run and its children (agent sessions' accounting): how many, tokens, cost. */
function llmUsage(node: RunNode): string {
  const attempts = barsOf(node).filter((b) => b.kind === 'llm').length;
  if (!attempts) return '';
  let tokens = 0;
  let cost = 0;
  const walk = (n: RunNode) => {
    for (const e of n.run.events) {
      const a = e.type === 'SessionAccounted' ? llmAttempt((e.data as { entry?: unknown }).entry) : null;
      if (!a) continue;
      tokens += a.tokens;
      cost += a.costUsd;
    }
    n.children.forEach(walk);
  };
  walk(node);
  return `<p id="llm-usage">LLM: ${attempts} attempt(s), ${tokens} tokens, $${cost.toFixed(4)}</p>`;
}

/** The run tree's run ids (what a run page's live block follows). */
export function treeIds(node: RunNode, into = new Set<string>()): Set<string> {
  into.add(node.run.run_id);
  for (const c of node.children) treeIds(c, into);
  return into;
}

/** A run page's live block: its head, what it was asked and answered, its waterfall and events. */
export function runBody(tree: RunNode): string {
  const r = tree.run;
  const s = tree.summary;
  const head = `<p id="run-head"><span class="${esc(r.status)}">${esc(r.status)}</span> · ${esc(r.run?.agent_name ?? '-')} · ${esc(r.run?.run_kind ?? '-')} · created ${esc(time(r.created_at))} · ${esc(duration(s?.duration_ms ?? spanOf(r)))}${r.error ? ` · <span class="error">${esc(r.error.error_code)}: ${esc(r.error.message)}</span>` : ''}</p>
<p>trace ${traceLink(s?.trace_id)}${pins(r.events)}${r.run?.case_id ? ` · case ${esc(r.run.case_id)}` : ''}${r.run?.user_id ? ` · user ${esc(r.run.user_id)}` : ''}${r.run?.parent_run_id ? ` · parent <a href="/runs/${esc(r.run.parent_run_id)}">${esc(r.run.parent_run_id)}</a>` : ''}</p>`;
  const exchange = exchangeOf(r.events).map(([label, text]) => [esc(label), `<pre>${esc(text)}</pre>`]);
  return `${head}${llmUsage(tree)}${exchange.length ? table(['', ''], exchange, 'exchange') : ''}<h2>Waterfall</h2>${waterfall(tree)}<h2>Events</h2>${events(tree)}`;
}
