/** The console's operations pages: campaign items waiting for a person, dead letters, the audit chain and coverage, operator actions. */
import type { NatsConnection } from '@nats-io/transport-node';
import { time } from '../format';
import { LogFold } from '../log-fold';
import type { ConsoleApi } from './api';
import { esc, hidden, json, page, postForm, table } from './html';

export async function approvalsPage(api: ConsoleApi, csrf: string, banner = ''): Promise<string> {
  const pending = await api.pendingApprovals();
  const rows = pending.map((a) => {
    const ids = hidden('campaign_id', a.campaign_id) + hidden('item_id', a.item_id);
    const question = a.kind === 'request_user_input';
    const fields = `${ids}<input name="answer" maxlength="2000" placeholder="${question ? 'answer' : 'reason (recorded)'}"${question ? ' required' : ''}> `;
    const buttons = question
      ? '<button type="submit" name="decision" value="answered">Answer</button>'
      : '<button type="submit" name="decision" value="approved">Approve</button> <button type="submit" name="decision" value="rejected">Reject</button>';
    const form = `<form class="inline answer" method="post" action="/approvals/answer">${hidden('csrf', csrf)}${fields}${buttons}</form>`;
    return [esc(a.campaign_id), esc(a.item_id), esc(a.kind), esc(a.cycle ?? '-'), esc(time(a.requested_at)), esc(time(a.expires_at)), json(a.proposal), form];
  });
  const who = `<p id="approver">You decide as <b>${esc(api.approver.id)}</b> (role ${esc(api.approver.role)}); the decision service checks that role against the campaign's pinned roles policy and records who decided, what and why.</p>`;
  return page('Pending approvals', `${banner}${who}${table(['Campaign', 'Item', 'Kind', 'Cycle', 'Requested (UTC)', 'Expires (UTC)', 'Proposal', 'Decide'], rows, 'approvals')}`);
}

export async function deadLettersPage(api: ConsoleApi, csrf: string, banner = ''): Promise<string> {
  const letters = await api.deadLetters();
  const rows = letters.map((l) => [
    esc(l.id), esc(time(l.recorded_at)), `${esc(l.subject)}${l.event_type ? ` (${esc(l.event_type)})` : ''}`, l.run_id ? `<a href="/runs/${esc(l.run_id)}">${esc(l.run_id)}</a>` : '-',
    esc(l.reason), esc(l.error_code), String(l.deliveries), l.retryable ? 'yes' : `no: ${esc(l.not_retryable_because ?? '')}`,
    l.retries.map((r) => `${esc(time(r.recorded_at))} by ${esc(r.requested_by)} → log message ${esc(r.new_seq)}`).join('<br>') || '0',
    json(l.payload ?? null, 'payload'),
    l.retryable ? postForm('/deadletters/retry', csrf, hidden('id', l.id), 'Retry') : '',
  ]);
  return page('Dead letters', `${banner}<p>Payloads as the log stores them: sealed fields stay sealed.</p>${table(['Id', 'Recorded (UTC)', 'Subject', 'Run', 'Reason', 'Code', 'Deliveries', 'Retry can succeed', 'Retries', 'Payload', ''], rows, 'deadletters')}`);
}

export async function auditPage(api: ConsoleApi): Promise<string> {
  const [chain, coverage] = await Promise.all([api.verify(), api.coverage()]);
  const status = chain.ok
    ? `<p id="chain" class="ok">audit chain OK: ${chain.length} entries, head <code>${esc(chain.head_hash ?? 'none')}</code></p>`
    : `<p id="chain" class="failed">audit chain BROKEN at entry ${esc(chain.first_broken_seq)}: ${esc(chain.reason)}</p>`;
  const cov = coverage.ok
    ? `<p id="coverage" class="ok">coverage OK: ${coverage.runs_checked} runs (${coverage.in_progress.length} in progress)</p>`
    : `<p id="coverage" class="failed">coverage: ${coverage.violations.length} missing record(s)</p>${table(['Run', 'Missing'], coverage.violations.slice(0, 500).map((v) => [`<a href="/runs/${esc(v.run_id)}">${esc(v.run_id)}</a>`, esc(v.missing)]))}`;
  return page('Audit', `<h2>Chain</h2>${status}<h2>Coverage (contract 001 §6)</h2>${cov}`);
}

interface OperatorActionView {
  at: string;
  data: { action: string; identity: string; role: string | null; requested_by: string; reason?: string; target: Record<string, string>; policy_version: string; granted: boolean; message?: string };
}

/** Every operator action decided against the operators' roles policy (OperatorActionDecided, rl.log.operator.*), newest first. */
export function operatorActionsLog(nc: NatsConnection): LogFold<OperatorActionView[]> {
  return new LogFold<OperatorActionView[]>(nc, 'rl.log.operator.*', (all, e) => (e.type === 'OperatorActionDecided' ? [...all, { at: e.metadata.recorded_at, data: e.data as OperatorActionView['data'] }] : all), []);
}

export async function operatorActionsPage(actions: LogFold<OperatorActionView[]>): Promise<string> {
  const all = await actions.read();
  const rows = [...all].reverse().slice(0, 500).map(({ at, data: d }) => [
    esc(time(at)), esc(d.action), Object.entries(d.target).map(([k, v]) => (k === 'run_id' ? `<a href="/runs/${esc(v)}">${esc(v)}</a>` : `${esc(k)} ${esc(v)}`)).join('<br>'),
    esc(d.requested_by), `${esc(d.identity)} (${esc(d.role ?? 'no role')})`, esc(d.reason ?? ''), esc(d.policy_version),
    d.granted ? '<span class="ok">granted</span>' : `<span class="error">refused: ${esc(d.message ?? '')}</span>`,
  ]);
  return page('Operator actions', `<p>Each action as the service that executes it decided it against the operators' roles policy (policy/operators.yaml), newest first (at most 500 shown of ${all.length}).</p>${table(['At (UTC)', 'Action', 'On', 'Who', 'Identity (role)', 'Why', 'Policy', 'Verdict'], rows, 'operator-actions')}`);
}
