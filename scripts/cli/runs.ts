/**
 * runledger runs — find, inspect, follow and cancel runs.
 *
 *   runs list  [--text T] [--status S] [--agent A] [--case C] [--user U] [--kind K] [--since T] [--until T] [--failed]
 *              [--all] [--by-agent] [--limit N] [--cursor C] [--json]  the runs index (rl.runs.list), newest first
 *   runs show  RUN_ID [--waterfall] [--json]                         the run, its child runs and their events (or bars)
 *   runs tail  [--agent A] [--case C] [--user U] [--failed] [--all] [--events] [--json]   follow runs live
 *   runs cancel RUN_ID [--reason TEXT] [--wait] [--json]              record a cancel; the worker stops the run
 *   runs cancel --filter [list filters] [--reason TEXT] [--yes] [--json]  the open runs a filter matches (dry run first)
 *   runs fork  RUN_ID --from STEP_ID [--policy LANES/ROLES] [--request-id ID] [--wait] [--json]   rerun from a checkpoint
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import type { RunCancelResult, RunsListRequest, RunsListResult, RunSummary } from '../../libs/contracts/src/generated';
import { SUBJECTS } from '../../libs/contracts/src/subjects';
import { isTerminalStatus } from '../../libs/governance/src/lifecycle/run-lifecycle';
import { CONNECTION_USAGE } from './connection';
import { duration, errorText, eventDetail, jaegerLink, printable, table, time } from './format';
import { ask, checkCombinations, CliError, unknownCommand, intFlag, json, parseArgs, ParsedArgs, runCommand, str, timeRange, uuidArg, withConnection } from './operator';

/*
 * Each subcommand's module is loaded when it is asked for (a `runs list` starts without the live-feed follower, the
 * fork, bulk cancel or waterfall code and the libraries they pull in): commands start in well under a second.
 */
const lazy = {
  tail: () => require('./runs-tail') as typeof import('./runs-tail'),
  fork: () => require('./runs-fork') as typeof import('./runs-fork'),
  bulk: () => require('./runs-bulk-cli') as typeof import('./runs-bulk-cli'),
  waterfall: () => require('./console/waterfall') as typeof import('./console/waterfall'),
};

/** The runs-list contract's request schema: the one place that says the statuses a run can have and a page's size. */
const LIST_SCHEMA = JSON.parse(readFileSync(join(__dirname, '..', '..', 'proto-contracts', 'schemas', 'runs', 'runs-list-request.schema.json'), 'utf8')) as { properties: { status: { enum: string[] }; limit: { maximum: number } } };
/** The statuses a run can have. */
export const RUN_STATUSES: readonly string[] = LIST_SCHEMA.properties.status.enum;
/** The most runs one page of rl.runs.list holds (the server refuses more). */
export const RUNS_PAGE_MAX: number = LIST_SCHEMA.properties.limit.maximum;

export const USAGE = `usage: runledger runs list [--text T] [--status S] [--agent A] [--case C] [--user U] [--kind K] [--since ISO] [--until ISO] [--failed] [--all] [--by-agent] [--limit N] [--cursor C] [--json]
       runledger runs show RUN_ID [--waterfall] [--json]
       runledger runs tail [--agent A] [--case C] [--user U] [--failed] [--all] [--events] [--json]
       runledger runs cancel RUN_ID [--reason TEXT] [--wait] [--timeout SECONDS] [--json]
       runledger runs cancel --filter [--text T] [--status S] [--agent A] [--case C] [--user U] [--kind K] [--since ISO] [--until ISO] [--failed] [--all] [--reason TEXT] [--yes [--selection TOKEN]] [--json]
       runledger runs fork RUN_ID --from STEP_ID [--policy LANES_VERSION/ROLES_VERSION] [--request-id ID] [--wait] [--timeout SECONDS] [--json]
       ${CONNECTION_USAGE}
  list     the runs index, newest first; --text: runs whose id, agent, kind, case, user, error code or error message
           contains T (any case); --status is one of ${RUN_STATUSES.join(', ')};
           --failed: failed runs only; --all: child runs too; --kind: agent, tool_gateway, db_write, promotion, export …;
           --since/--until: ISO 8601 times (e.g. 2026-11-24T07:00:00Z); --limit N: runs a page, 1 to ${RUNS_PAGE_MAX}
           (default 50); --cursor C: the next page;
           --by-agent: also every matching run counted per agent by outcome, with the p50 and p95 duration
  show     the run, its child runs and their events: the message, intent and reply, durations, outcome, trace id;
           --waterfall: the run, its steps, tool calls and child runs as bars on one time axis instead of the events
  tail     follow runs live from the moment it is asked (--events: every event, not only starts and ends)
  cancel   record a cancel; the worker ends the run at its next step (--wait: until it has, at most --timeout s);
           --filter: every open run the list filters match (at least one filter), one cancel each; without --yes
           only counts them (a dry run, which prints its selection's token), with --yes cancels them and prints how many
           were cancelled, had ended, refused; --yes --selection TOKEN: exactly the runs the dry run showed, or nothing
  fork     a new run of an ended top-level governed run that restores its steps up to and including STEP_ID (a
           StepCompleted of runs show) and executes the rest under --policy (default: the current versions); prints
           the fork's run id (--wait: and its outcome). The same --request-id forks once (default: a new fork)
exit codes: 0 done, 1 refused by the stack (its error code is printed), 2 usage or input the stack finds invalid
            (REQUEST.INVALID), 3 the stack cannot be reached or this identity
            may not ask (refused: …)`;

const SPEC = {
  list: { valued: ['text', 'status', 'agent', 'case', 'user', 'kind', 'since', 'until', 'limit', 'cursor'], switches: ['failed', 'all', 'by-agent', 'json'] },
  show: { valued: [], switches: ['json', 'waterfall'] },
  tail: { valued: ['agent', 'case', 'user'], switches: ['failed', 'all', 'events', 'json'] },
  cancel: { valued: ['reason', 'timeout', 'text', 'status', 'agent', 'case', 'user', 'kind', 'since', 'until', 'selection'], switches: ['wait', 'json', 'filter', 'yes', 'failed', 'all'] },
  fork: { valued: ['from', 'policy', 'request-id', 'timeout'], switches: ['wait', 'json'] },
} as const;

export function main(args: string[]): Promise<number> {
  return runCommand(async () => {
    const [sub, ...rest] = args;
    if (!sub || !(sub in SPEC)) throw unknownCommand(sub, USAGE);
    const spec = SPEC[sub as keyof typeof SPEC];
    const p = parseArgs(rest, { valued: [...spec.valued], switches: [...spec.switches] }, USAGE);
    checkCombinations(p, USAGE, [{ option: 'timeout', needs: 'wait', why: 'it is how long --wait waits' }]);
    if (sub === 'list') {
      const request = listRequest(p); // a usage error is said before connecting
      return withConnection(p.conn, (nc) => list(nc, p, request));
    }
    if (sub === 'cancel' && p.flags.has('filter')) {
      return lazy.bulk().bulkCancel(p, listRequest(p), USAGE);
    }
    if (sub === 'tail') return withConnection(p.conn, (nc) => lazy.tail().tailRuns(nc, { agent: str(p, 'agent'), case: str(p, 'case'), user: str(p, 'user'), failed: p.flags.has('failed'), all: p.flags.has('all'), events: p.flags.has('events'), json: p.flags.has('json') }), 'operator', { follows: true });
    if (sub === 'cancel' && ['text', 'status', 'agent', 'case', 'user', 'kind', 'since', 'until', 'yes', 'selection', 'failed', 'all'].some((f) => p.flags.has(f))) {
      throw new CliError(`runs cancel takes filters only with --filter\n${USAGE}`, 2);
    }
    const runId = p.positional[0];
    if (!runId || p.positional.length > 1) throw new CliError(`runs ${sub} takes one RUN_ID\n${USAGE}`, 2);
    uuidArg(runId, 'RUN_ID', USAGE); // a typo is said before connecting (exit 2), not refused by the stack
    const timeoutS = intFlag(p, 'timeout', USAGE);
    if (sub === 'show') return withConnection(p.conn, (nc) => show(nc, runId, p.flags.has('json'), p.flags.has('waterfall')));
    if (sub === 'fork') {
      const { fork, forkRequest } = lazy.fork();
      const request = forkRequest(runId, p, USAGE);
      return withConnection(p.conn, (nc) => fork(nc, request, p, timeoutS ?? 120));
    }
    return withConnection(p.conn, (nc) => cancel(nc, runId, p, timeoutS ?? 60));
  });
}

export function listRequest(p: ParsedArgs): RunsListRequest {
  const q: RunsListRequest = {};
  const status = str(p, 'status');
  if (status && !RUN_STATUSES.includes(status)) throw new CliError(`--status must be one of ${RUN_STATUSES.join(', ')}\n${USAGE}`, 2);
  if (status) q.status = status as RunsListRequest['status'];
  if (str(p, 'text')) q.text = str(p, 'text');
  if (str(p, 'agent')) q.agent_name = str(p, 'agent');
  if (str(p, 'case')) q.case_id = str(p, 'case');
  if (str(p, 'user')) q.user_id = str(p, 'user');
  if (str(p, 'kind')) q.run_kind = str(p, 'kind');
  const range = timeRange(p, USAGE);
  for (const name of ['since', 'until'] as const) if (range[name] !== undefined) q[name] = range[name];
  if (p.flags.has('failed')) q.failed_only = true;
  if (p.flags.has('all')) q.include_children = true;
  if (p.flags.has('by-agent')) q.by_agent = true;
  const limit = intFlag(p, 'limit', USAGE, 1, RUNS_PAGE_MAX);
  if (limit !== undefined) q.limit = limit;
  if (str(p, 'cursor')) q.cursor = str(p, 'cursor');
  return q;
}

async function list(nc: NatsConnection, p: ParsedArgs, request: RunsListRequest): Promise<number> {
  const page = await ask<RunsListResult>(nc, SUBJECTS.runsList, request);
  if (p.flags.has('json')) return (json(page), 0);
  if (page.runs.length === 0) {
    process.stdout.write('no runs match\n');
    return 0;
  }
  process.stdout.write(table(
    ['RUN', 'AGENT', 'KIND', 'STATUS', 'CREATED (UTC)', 'DURATION', 'CASE/USER', 'ERROR'],
    page.runs.map((r) => [r.run_id, r.agent_name ?? '-', r.run_kind ?? '-', r.status, time(r.created_at), duration(r.duration_ms), r.case_id ?? r.user_id ?? '-', r.error_code ?? '']),
  ));
  process.stdout.write(`${page.runs.length} of ${page.matched} matching run(s)`);
  process.stdout.write(page.next_cursor ? `; next page: add --cursor ${page.next_cursor}\n` : '\n');
  if (page.by_agent) {
    process.stdout.write(`\n${table(['AGENT', 'RUNS', 'COMPLETED', 'FAILED', 'DENIED', 'CANCELLED', 'OPEN', 'P50', 'P95'], page.by_agent.map((a) => [a.agent_name ?? '-', ...[a.runs, a.completed, a.failed, a.denied, a.cancelled, a.open].map(String), duration(a.p50_ms), duration(a.p95_ms)]))}`);
  }
  return 0;
}

interface RunEventView {
  seq: number;
  type: string;
  data: unknown;
  recorded_at: string;
}

interface RunView {
  run_id: string;
  status: string;
  run?: { agent_name?: string; run_kind?: string; case_id?: string; user_id?: string; parent_run_id?: string; forked_from?: { run_id: string; checkpoint: string } };
  error?: { error_code: string; message: string };
  created_at?: string;
  updated_at?: string;
  child_run_ids: string[];
  tool_calls: { child_run_id: string }[];
  events: RunEventView[];
}

export interface RunNode {
  summary: RunSummary | null;
  run: RunView;
  children: RunNode[];
}

/** The run tree: from the runs index when it has the tree, else from the runs' own child links (the index may lag). */
export async function loadTree(nc: NatsConnection, runId: string): Promise<RunNode> {
  const root = await ask<RunView>(nc, SUBJECTS.runsGet, { run_id: runId, include_events: true });
  const indexed = await ask<RunsListResult>(nc, SUBJECTS.runsList, { root_run_id: runId, include_children: true, limit: 500 }).catch(() => null);
  const rows = new Map((indexed?.runs ?? []).map((r) => [r.run_id, r]));
  const build = async (run: RunView, seen: Set<string>): Promise<RunNode> => {
    seen.add(run.run_id);
    const indexedChildren = [...rows.values()].filter((r) => r.parent_run_id === run.run_id).map((r) => r.run_id);
    const childIds = new Set([...indexedChildren, ...run.child_run_ids, ...run.tool_calls.map((c) => c.child_run_id)]);
    const children: RunNode[] = [];
    for (const id of childIds) {
      if (seen.has(id)) continue;
      const child = await ask<RunView>(nc, SUBJECTS.runsGet, { run_id: id, include_events: true }).catch(() => null);
      if (child) children.push(await build(child, seen));
    }
    children.sort((a, b) => (a.run.created_at ?? '').localeCompare(b.run.created_at ?? ''));
    return { run, summary: rows.get(run.run_id) ?? null, children };
  };
  return build(root, new Set());
}

/**
 * What a person asks of a run first: what it was asked (the message, or a governed run's parameters), how it was
 * understood (the classified intent) and what it answered (the reply, or a governed run's result), as the log holds
 * them (an erased user's text reads as erased).
 */
export function exchangeOf(events: ReadonlyArray<{ type: string; data: unknown }>): Array<[string, string]> {
  const data = (type: string) => events.find((e) => e.type === type)?.data as Record<string, unknown> | undefined;
  const created = data('RunCreated');
  const decided = data('DecisionRecorded');
  const completed = data('RunCompleted');
  const params = (created?.parameters ?? {}) as Record<string, unknown>;
  const out: Array<[string, string]> = [];
  const asked = params.message ?? params.prompt;
  if (typeof asked === 'string') out.push(['message', asked]);
  else if (created?.run_kind === 'agent' && Object.keys(params).length) out.push(['params', JSON.stringify(params)]);
  const intent = decided?.intent as { intent_type?: string; confidence?: number | null } | undefined;
  if (intent?.intent_type) out.push(['intent', `${intent.intent_type}${typeof intent.confidence === 'number' ? ` (confidence ${intent.confidence})` : ''}`]);
  const decision = (decided?.decision ?? (completed?.result as { decision?: unknown } | undefined)?.decision) as { response_text?: string | null; clarification_question?: string | null } | undefined;
  const reply = decision?.response_text ?? decision?.clarification_question;
  if (typeof reply === 'string') out.push(['reply', reply]);
  else if (created?.run_kind === 'agent' && completed?.result !== undefined) out.push(['result', JSON.stringify(completed.result)]);
  return out;
}

function renderTree(node: RunNode, indent: string, out: string[]): void {
  const r = node.run;
  const started = r.created_at ? Date.parse(r.created_at) : NaN;
  const ended = r.updated_at ? Date.parse(r.updated_at) : NaN;
  const head = [`run ${r.run_id}`, r.run?.agent_name ?? '-', r.run?.run_kind ?? '-', r.status, duration(Number.isNaN(ended - started) ? null : ended - started)].map(printable);
  if (r.error) head.push(errorText(r.error));
  out.push(`${indent}${head.join('  ')}`);
  const origin = r.run?.forked_from;
  if (origin) out.push(printable(`${indent}  forked from run ${origin.run_id} at step ${origin.checkpoint}`));
  for (const [label, text] of exchangeOf(r.events)) out.push(`${indent}  ${label.padEnd(8)} ${text.split('\n').map(printable).join(`\n${indent}  ${' '.repeat(9)}`)}`);
  const trace = node.summary?.trace_id;
  if (trace) out.push(printable(`${indent}  trace ${trace}${jaegerLink(trace) ? `  ${jaegerLink(trace)}` : ''}`));
  for (const e of r.events) {
    const offset = Number.isNaN(started) ? '' : `+${duration(Date.parse(e.recorded_at) - started)}`;
    out.push(`${indent}  ${offset.padEnd(10)} ${printable(e.type)}${eventDetail(e)}`);
  }
  for (const child of node.children) renderTree(child, `${indent}  │ `, out);
}

async function show(nc: NatsConnection, runId: string, asJson: boolean, bars: boolean): Promise<number> {
  const tree = await loadTree(nc, runId);
  if (asJson) return (json(tree), 0);
  if (bars) return (process.stdout.write(lazy.waterfall().textWaterfall(tree)), 0);
  const out: string[] = [];
  renderTree(tree, '', out);
  process.stdout.write(`${out.join('\n')}\n`);
  return 0;
}

async function cancel(nc: NatsConnection, runId: string, p: ParsedArgs, timeoutS: number): Promise<number> {
  const res = await ask<RunCancelResult>(nc, SUBJECTS.runsCancel, { run_id: runId, ...(str(p, 'reason') ? { reason: str(p, 'reason') } : {}), requested_by: process.env.USER ?? 'operator' });
  let status = res.status;
  if (p.flags.has('wait') && res.outcome === 'requested') {
    const deadline = Date.now() + timeoutS * 1_000;
    while (!isTerminalStatus(status)) {
      if (Date.now() > deadline) throw new CliError(`run ${runId} has not stopped yet (status ${status}); its worker stops it at its next step`, 1);
      await new Promise((r) => setTimeout(r, 200));
      status = (await ask<{ status: string }>(nc, SUBJECTS.runsGet, { run_id: runId })).status;
    }
  }
  if (p.flags.has('json')) return (json({ ...res, status }), 0);
  if (res.outcome === 'already_ended') process.stdout.write(`run ${runId} already ended (${res.status}); nothing to cancel\n`);
  else if (p.flags.has('wait')) process.stdout.write(`run ${runId} ${status}\n`);
  else process.stdout.write(`cancel recorded for run ${runId} (${res.status}); its worker stops it at its next step\n`);
  return 0;
}
