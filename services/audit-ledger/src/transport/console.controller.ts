import { Controller, Get, Header, Inject, NotFoundException, Param, Query } from '@nestjs/common';
import { RunsListRequestDto } from '@runledger/contracts';
import { AppError } from '@runledger/kernel';
import { CachedDataKeys, DATA_KEYS, openDeep, validateMessage } from '@runledger/messaging';
import { ConsoleService, RunNode } from '../app/console.service';
import { duration, esc, jaegerLink, page, table } from '../console/html';

const HTML = 'text/html; charset=utf-8';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The operator console: server-rendered pages over the runs index, the log, the audit chain, dead letters and
 * pending approvals. Read-only; served on the audit-ledger's HTTP port (HTTP_HOST, loopback by default), so
 * expose it only behind the same access control as the operator NATS identity.
 */
@Controller('console')
export class ConsoleController {
  constructor(private readonly console: ConsoleService, @Inject(DATA_KEYS) private readonly keys: CachedDataKeys) {}

  @Get()
  @Header('content-type', HTML)
  async runs(@Query() query: Record<string, string>): Promise<string> {
    const q: Record<string, unknown> = {};
    for (const k of ['status', 'agent_name', 'case_id', 'user_id', 'run_kind', 'cursor']) if (query[k]) q[k] = query[k];
    if (query.failed_only) q.failed_only = true;
    if (query.include_children) q.include_children = true;
    let result;
    try {
      result = await this.console.list(validateMessage(RunsListRequestDto, q));
    } catch (err) {
      if (err instanceof AppError) return page('Runs', `<p class="error">${esc(err.code)}: ${esc(err.message)}</p>${this.searchForm(query)}`);
      throw err;
    }
    const rows = result.runs.map((r) => [
      `<a href="/console/runs/${esc(r.run_id)}">${esc(r.run_id)}</a>`, esc(r.agent_name ?? '-'), esc(r.run_kind ?? '-'), `<span class="${esc(r.status)}">${esc(r.status)}</span>`,
      esc(r.created_at ?? '-'), duration(r.duration_ms), esc(r.case_id ?? r.user_id ?? '-'), esc(r.error_code ?? ''),
    ]);
    const next = result.next_cursor ? `<p><a id="next" href="/console?${new URLSearchParams({ ...query, cursor: result.next_cursor }).toString()}">next page</a></p>` : '';
    const agents = [...(await this.console.perAgent())].sort(([a], [b]) => a.localeCompare(b))
      .map(([agent, c]) => [esc(agent), String(Object.values(c).reduce((n, v) => n + v, 0)), String(c.completed ?? 0), String((c.failed ?? 0) + (c.denied ?? 0)), String(c.cancelled ?? 0), String(c.running ?? 0)]);
    return page('Runs', `${this.searchForm(query)}<p id="matched">${result.matched} matching run(s)</p>${table(['Run', 'Agent', 'Kind', 'Status', 'Created (UTC)', 'Duration', 'Case / user', 'Error'], rows, 'runs')}${next}
<h2>Runs per agent</h2>${table(['Agent', 'Started', 'Completed', 'Failed', 'Cancelled', 'Running'], agents, 'per-agent')}`);
  }

  private searchForm(q: Record<string, string>): string {
    const input = (name: string, label: string) => `<label>${label} <input name="${name}" value="${esc(q[name] ?? '')}"></label> `;
    const check = (name: string, label: string) => `<label><input type="checkbox" name="${name}" value="1"${q[name] ? ' checked' : ''}> ${label}</label> `;
    return `<form id="search" method="get" action="/console">${input('agent_name', 'Agent')}${input('status', 'Status')}${input('case_id', 'Case')}${input('user_id', 'User')}${check('failed_only', 'failed only')}${check('include_children', 'child runs too')}<button type="submit">Search</button></form>`;
  }

  @Get('runs/:id')
  @Header('content-type', HTML)
  async run(@Param('id') id: string): Promise<string> {
    if (!UUID.test(id)) throw new NotFoundException();
    const tree = await this.console.tree(id);
    if (!tree) return page('Run not found', `<p>No run ${esc(id)} in the log.</p>`);
    // The ledger reads the log as stored: events are shown opened, as rl.runs.get shows them (README "Erasure").
    return page(`Run ${id}`, this.node((await openDeep(this.keys, tree)) as RunNode));
  }

  private node(n: RunNode): string {
    const s = n.summary;
    const start = n.events[0] ? Date.parse(n.events[0].metadata.recorded_at) : 0;
    const events = n.events.map((e) => [esc(`+${duration(Date.parse(e.metadata.recorded_at) - start)}`), esc(e.type), `<code>${esc(JSON.stringify(e.data).slice(0, 200))}</code>`]);
    const head = `<h3 class="run" data-run="${esc(n.run_id)}">${esc(s?.agent_name ?? '-')} · ${esc(s?.run_kind ?? '-')} · <span class="${esc(s?.status ?? '')}">${esc(s?.status ?? 'not indexed yet')}</span> · ${duration(s?.duration_ms)} · ${esc(n.run_id)}</h3>`;
    const trace = `<p>trace ${jaegerLink(s?.trace_id)}${s?.error_code ? ` · error ${esc(s.error_code)}: ${esc(s.error_message ?? '')}` : ''}</p>`;
    return `<div class="node">${head}${trace}${table(['At', 'Event', 'Data'], events)}${n.children.map((c) => `<div class="child">${this.node(c)}</div>`).join('')}</div>`;
  }

  @Get('audit')
  @Header('content-type', HTML)
  async audit(): Promise<string> {
    const [chain, coverage] = await Promise.all([this.console.verify(), this.console.coverage()]);
    const status = chain.ok ? `<p id="chain">audit chain OK: ${chain.length} entries, head <code>${esc(chain.head_hash ?? 'none')}</code></p>` : `<p id="chain" class="failed">audit chain BROKEN at entry ${esc(chain.first_broken_seq)}: ${esc(chain.reason)}</p>`;
    const cov = coverage.ok ? `<p id="coverage">coverage OK: ${coverage.runs_checked} runs (${coverage.in_progress.length} in progress)</p>` : `<p id="coverage" class="failed">coverage: ${coverage.violations.length} missing record(s)</p>${table(['Run', 'Missing'], coverage.violations.slice(0, 200).map((v) => [esc(v.run_id), esc(v.missing)]))}`;
    return page('Audit', `<h2>Chain</h2>${status}<h2>Coverage (contract 001 §6)</h2>${cov}`);
  }

  @Get('deadletters')
  @Header('content-type', HTML)
  async deadLetters(): Promise<string> {
    const rows = (await this.console.deadLetterList()).map((l) => [esc(l.id), esc(l.recorded_at), esc(l.subject), esc(l.reason), esc(l.error_code), String(l.deliveries), l.retryable ? String(l.retries.length) : 'n/a']);
    return page('Dead letters', `<p>Retry with <code>runledger deadletters retry ID</code>.</p>${table(['Id', 'Recorded', 'Subject', 'Reason', 'Code', 'Deliveries', 'Retries'], rows, 'deadletters')}`);
  }

  @Get('approvals')
  @Header('content-type', HTML)
  async approvals(): Promise<string> {
    const rows = (await this.console.pendingApprovals()).map((a) => [esc(a.campaign_id), esc(a.item_id), esc(a.kind), esc(a.requested_at), esc(a.expires_at)]);
    return page('Pending approvals', table(['Campaign', 'Item', 'Kind', 'Requested', 'Expires'], rows, 'approvals'));
  }
}
