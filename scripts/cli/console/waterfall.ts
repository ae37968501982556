/**
 * A run's waterfall: the run, its steps, tool calls and child runs (recursively) as bars on one time axis, from the
 * recorded_at of their events. For the console as HTML and CSS (positions in percent of the tree's whole span), for
 * `runs show --waterfall` as text.
 */
import type { RunNode } from '../runs';
import { duration, esc } from './html';
import { printable } from '../format';

export interface Bar {
  kind: 'run' | 'step' | 'tool' | 'llm';
  label: string;
  start: number;
  end: number;
  depth: number;
  status?: string;
  run_id?: string;
}

const TERMINAL = new Set(['RunCompleted', 'RunFailed', 'RunDenied', 'RunCancelled']);
const at = (iso: string) => Date.parse(iso);

/** The bars of one run and, after it, those of its children; in the order a person reads them. */
export function barsOf(node: RunNode, depth = 0): Bar[] {
  const events = node.run.events;
  if (!events.length) return [];
  const start = at(events[0].recorded_at);
  const end = at(events[events.length - 1].recorded_at);
  const name = `${node.run.run?.agent_name ?? node.summary?.agent_name ?? '-'} · ${node.run.run?.run_kind ?? '-'}`;
  const bars: Bar[] = [{ kind: 'run', label: name, start, end, depth, status: node.run.status, run_id: node.run.run_id }];
  // A step runs from the previous step's end (or the run's start) to its StepCompleted.
  let stepFrom = start;
  const openCalls = new Map<string, { name: string; start: number }>();
  for (const e of events) {
    const d = (e.data ?? {}) as Record<string, unknown>;
    const t = at(e.recorded_at);
    if (e.type === 'RunStarted') stepFrom = t;
    else if (e.type === 'StepCompleted') {
      bars.push({ kind: 'step', label: `step ${String(d.step_id ?? d.step_index ?? '')}`, start: stepFrom, end: t, depth: depth + 1 });
      stepFrom = t;
    } else if (e.type === 'SessionAccounted') {
      const attempt = llmAttempt(d.entry);
      if (attempt) bars.push({ kind: 'llm', label: attempt.label, start: t - attempt.latency, end: t, depth: depth + 1, status: attempt.failed ? 'failed' : undefined });
    } else if (e.type === 'ToolCallRequested') openCalls.set(String(d.call_id), { name: String(d.tool_name ?? d.call_id), start: t });
    else if (e.type === 'ToolCallRecorded') {
      const call = openCalls.get(String(d.call_id));
      openCalls.delete(String(d.call_id));
      bars.push({ kind: 'tool', label: `tool ${call?.name ?? String(d.tool_name ?? d.call_id)}`, start: call?.start ?? t, end: t, depth: depth + 1, status: typeof d.status === 'string' ? d.status : undefined });
    }
  }
  // A call still open (the run ended or is running) is drawn up to the run's last event.
  for (const call of openCalls.values()) bars.push({ kind: 'tool', label: `tool ${call.name} (no outcome)`, start: call.start, end, depth: depth + 1 });
  if (!TERMINAL.has(events[events.length - 1].type)) bars[0].label += ' (open)';
  for (const child of node.children) bars.push(...barsOf(child, depth + 1));
  return bars;
}

/** An agent session's model attempt as its accounting entry records it (SessionAccounted, type llm), or null. */
export function llmAttempt(entry: unknown): { label: string; latency: number; failed: boolean; tokens: number; costUsd: number } | null {
  const e = (entry ?? {}) as { type?: string; provider?: string; model?: string; status?: string; latency?: number; tokens?: { inputTokens?: number; outputTokens?: number; totalTokens?: number }; costUsd?: number; errorKind?: string };
  if (e.type !== 'llm') return null;
  const tokens = e.tokens ?? {};
  const cost = typeof e.costUsd === 'number' ? ` · $${e.costUsd.toFixed(4)}` : '';
  const failed = e.status === 'failed';
  return {
    label: `llm ${e.provider ?? '-'}/${e.model ?? '-'} · ${tokens.inputTokens ?? 0} in / ${tokens.outputTokens ?? 0} out tokens${cost}${failed ? ` · ${e.errorKind ?? 'failed'}` : ''}`,
    latency: Math.max(0, Number(e.latency ?? 0)), failed, tokens: tokens.totalTokens ?? 0, costUsd: e.costUsd ?? 0,
  };
}

export function waterfall(node: RunNode): string {
  const bars = barsOf(node);
  if (!bars.length) return '<p>no events</p>';
  const t0 = Math.min(...bars.map((b) => b.start));
  const span = Math.max(1, Math.max(...bars.map((b) => b.end)) - t0);
  const pct = (ms: number) => `${((ms / span) * 100).toFixed(3)}%`;
  const rows = bars.map((b) => {
    const label = `${'\u00a0\u00a0'.repeat(b.depth)}${b.run_id ? `<a href="/runs/${esc(b.run_id)}">${esc(b.label)}</a>` : esc(b.label)}`;
    const cls = ['bar', b.kind, b.status ?? ''].join(' ').trim();
    return `<div class="row" data-kind="${b.kind}"${b.run_id ? ` data-run="${esc(b.run_id)}"` : ''}><div class="label" title="${esc(b.label)}">${label}</div>`
      + `<div class="track"><div class="${esc(cls)}" style="left:${pct(b.start - t0)};width:${pct(b.end - b.start)}"><span>${esc(duration(b.end - b.start))}${b.status ? ` ${esc(b.status)}` : ''}</span></div></div></div>`;
  });
  return `<div class="wf" id="waterfall"><div class="row"><div class="label"><b>0 ms</b></div><div class="track" style="background:none;text-align:right"><b>${esc(duration(span))}</b></div></div>${rows.join('')}</div>`;
}

/** The same bars as text, `width` columns for the time axis. */
export function textWaterfall(node: RunNode, width = 50): string {
  const bars = barsOf(node);
  if (!bars.length) return 'no events\n';
  const t0 = Math.min(...bars.map((b) => b.start));
  const span = Math.max(1, Math.max(...bars.map((b) => b.end)) - t0);
  const labels = bars.map((b) => `${'  '.repeat(b.depth)}${printable(b.label)}`);
  const pad = Math.min(48, Math.max(...labels.map((l) => l.length)));
  const lines = bars.map((b, i) => {
    const from = Math.min(width - 1, Math.floor(((b.start - t0) / span) * width));
    const to = Math.max(from + 1, Math.round(((b.end - t0) / span) * width));
    const bar = `${' '.repeat(from)}${'█'.repeat(to - from)}${' '.repeat(Math.max(0, width - to))}`;
    return `${labels[i].slice(0, pad).padEnd(pad)} |${bar}| ${duration(b.end - b.start)}${printable(`${b.status ? ` ${b.status}` : ''}${b.run_id ? `  ${b.run_id}` : ''}`)}`;
  });
  return `${' '.repeat(pad)} 0${' '.repeat(width - 1)}${duration(span)}\n${lines.join('\n')}\n`;
}
