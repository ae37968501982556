/**
 * The console's dashboards (`/dashboards`), computed when asked from what the stack records, no sampled or made-up
 * figure: per agent, from the runs index (rl.runs.list with by_agent over the window): throughput, p50/p95 duration,
 * failure and denial rates; the durable consumers' lag from JetStream consumer info; dead letters
 * (rl.deadletters.list); LLM token spend and cost from the agent sessions' accounting entries in the log
 * (SessionAccounted, type llm), read once and then only what the log added since.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { LOG_STREAM, type StoredEvent } from '@runledger/event-log';
import { LogFold } from '../log-fold';
import type { RunsListResult } from '../../../libs/contracts/src/generated';
import type { ConsoleApi } from './api';
import { duration, esc, page, table } from './html';
import { llmAttempt } from './waterfall';

export const WINDOWS: Record<string, number | null> = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, all: null };

interface Spend {
  at: number;
  agent: string;
  model: string;
  failed: boolean;
  tokens: number;
  input: number;
  output: number;
  costUsd: number;
}

/** LLM attempts folded from the log: the agent of each run (its RunCreated) and each accounting entry of type llm. */
export class TokenSpend {
  private readonly agents = new Map<string, string>();
  private readonly fold: LogFold<Spend[]>;

  constructor(nc: NatsConnection) {
    this.fold = new LogFold<Spend[]>(nc, 'rl.log.run.>', (spends, e) => this.evolve(spends, e), []);
  }

  read(): Promise<Spend[]> {
    return this.fold.read();
  }

  private evolve(spends: Spend[], e: StoredEvent): Spend[] {
    const d = (e.data ?? {}) as Record<string, unknown>;
    if (e.type === 'RunCreated' && typeof d.agent_name === 'string') this.agents.set(e.metadata.stream_id, d.agent_name);
    else if (e.type === 'SessionAccounted') {
      const entry = d.entry as { model?: string; provider?: string; status?: string; tokens?: { inputTokens?: number; outputTokens?: number; totalTokens?: number }; costUsd?: number };
      if (llmAttempt(entry)) {
        const t = entry.tokens ?? {};
        spends.push({
          at: Date.parse(e.metadata.recorded_at), agent: this.agents.get(e.metadata.stream_id) ?? '-', model: `${entry.provider ?? '-'}/${entry.model ?? '-'}`,
          failed: entry.status === 'failed', tokens: t.totalTokens ?? 0, input: t.inputTokens ?? 0, output: t.outputTokens ?? 0, costUsd: entry.costUsd ?? 0,
        });
      }
    }
    return spends;
  }
}

/** Each durable consumer's lag (messages not yet delivered plus delivered and not yet acknowledged). */
async function consumerLag(nc: NatsConnection, durables: string[]): Promise<string[][]> {
  const jsm = await jetstreamManager(nc).catch(() => null);
  return Promise.all(durables.map(async (name) => {
    const info = jsm ? await jsm.consumers.info(LOG_STREAM, name).catch((err: Error) => err) : new Error('JetStream is not reachable');
    if (info instanceof Error) return [esc(name), '-', '-', '-', `<span class="error">${esc(info.message)}</span>`];
    return [esc(name), String(info.num_pending + info.num_ack_pending), String(info.num_pending), String(info.num_ack_pending), String(info.num_redelivered)];
  }));
}

const pct = (n: number, of: number) => (of ? `${((n / of) * 100).toFixed(1)}%` : '-');

export async function dashboardsPage(api: ConsoleApi, spend: TokenSpend, durables: string[], q: URLSearchParams): Promise<string> {
  const window = q.get('window') && q.get('window')! in WINDOWS ? q.get('window')! : '24h';
  const ms = WINDOWS[window];
  const since = ms === null ? undefined : new Date(Date.now() - ms).toISOString();
  const [runs, lag, letters, spends] = await Promise.all([
    api.runs({ by_agent: true, limit: 1, ...(since ? { since } : {}) }) as Promise<RunsListResult>,
    consumerLag(api.nc, durables),
    api.deadLetters(),
    spend.read(),
  ]);
  const hours = ms === null ? null : ms / 3_600_000;
  const agents = (runs.by_agent ?? []).map((a) => {
    const ended = a.completed + a.failed + a.denied + a.cancelled;
    return [esc(a.agent_name ?? '-'), String(a.runs), hours ? (a.runs / hours).toFixed(2) : '-', esc(duration(a.p50_ms)), esc(duration(a.p95_ms)), pct(a.failed, ended), pct(a.denied, ended), String(a.open)];
  });
  const byDurable = new Map<string, { all: number; retryable: number }>();
  for (const l of letters) {
    const d = byDurable.get(l.durable) ?? { all: 0, retryable: 0 };
    d.all++;
    if (l.retryable) d.retryable++;
    byDurable.set(l.durable, d);
  }
  const cut = since ? Date.parse(since) : -Infinity;
  const tokenRows = new Map<string, { attempts: number; failed: number; input: number; output: number; total: number; cost: number }>();
  for (const s of spends) {
    if (s.at < cut) continue;
    const key = `${s.agent}\u0000${s.model}`;
    const r = tokenRows.get(key) ?? { attempts: 0, failed: 0, input: 0, output: 0, total: 0, cost: 0 };
    r.attempts++;
    if (s.failed) r.failed++;
    r.input += s.input;
    r.output += s.output;
    r.total += s.tokens;
    r.cost += s.costUsd;
    tokenRows.set(key, r);
  }
  const tokens = [...tokenRows.entries()].sort((a, b) => b[1].total - a[1].total).map(([key, r]) => {
    const [agent, model] = key.split('\u0000');
    return [esc(agent), esc(model), String(r.attempts), String(r.failed), String(r.input), String(r.output), String(r.total), `$${r.cost.toFixed(4)}`];
  });
  const choose = Object.keys(WINDOWS).map((w) => (w === window ? `<b>${esc(w)}</b>` : `<a href="/dashboards?window=${esc(w)}">${esc(w)}</a>`)).join(' ');
  return page('Dashboards', `<p>Window: ${choose} (${since ? `runs created since ${esc(since)}` : 'the whole log'}); computed now from the runs index, the log and JetStream.</p>
<h2>Runs per agent</h2><p id="runs-total">${runs.matched} top-level run(s)</p>${table(['Agent', 'Runs', 'Per hour', 'p50', 'p95', 'Failed', 'Denied', 'Open'], agents, 'dash-agents')}
<p>Failed and denied are shares of the ended runs; p50 and p95 of the ended runs' durations.</p>
<h2>Consumer lag</h2>${table(['Durable consumer', 'Lag', 'Not delivered', 'Awaiting ack', 'Redelivered'], lag, 'dash-lag')}
<h2>Dead letters</h2><p id="dash-deadletters">${letters.length} dead letter(s)</p>${table(['Durable consumer', 'Dead letters', 'Retry can succeed'], [...byDurable.entries()].map(([d, n]) => [esc(d), String(n.all), String(n.retryable)]), 'dash-deadletters-by')}
<h2>LLM token spend</h2>${table(['Agent', 'Model', 'Attempts', 'Failed', 'Input tokens', 'Output tokens', 'Total tokens', 'Cost (USD)'], tokens, 'dash-tokens')}
<p>From the agent sessions' accounting in the log (one entry per model attempt, its tokens and the provider's cost when it reports one).</p>`);
}
