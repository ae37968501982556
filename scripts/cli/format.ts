/** Plain-text rendering for people: aligned tables, durations, short ids. No colours (output is often piped). */

export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '-';
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  return m < 60 ? `${m} min ${Math.round((ms % 60_000) / 1_000)} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** `2026-11-24T07:01:02.345Z` → `2026-11-24 07:01:02` (UTC, as recorded). */
export const time = (iso: string | null | undefined): string => (iso ? iso.replace('T', ' ').slice(0, 19) : '-');

export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(headers), ...rows.map(line)].join('\n') + '\n';
}

export function jaegerLink(traceId: string | null | undefined): string | null {
  const base = process.env.JAEGER_UI_URL;
  return traceId && base ? `${base.replace(/\/$/, '')}/trace/${traceId}` : null;
}

/** The one fact of an event an operator reads first. */
export function eventDetail(e: { type: string; data: unknown }): string {
  const d = (e.data ?? {}) as Record<string, unknown>;
  const err = d.error as { error_code?: string; message?: string } | undefined;
  if (e.type === 'AuthzDecided') return ` ${d.decision}${d.lane ? ` lane ${d.lane}` : ''}${d.action ? ` ${d.action}` : ''}${d.code ? ` (${d.code})` : ''}`;
  if (e.type === 'StepCompleted') return ` ${d.step_id}`;
  if (e.type === 'ToolCallRequested' || e.type === 'ToolCallRecorded') return ` ${d.tool_name ?? d.call_id}${d.status ? ` ${d.status}` : ''}`;
  if (e.type === 'ChildRunStarted') return ` ${d.agent_name} ${d.child_run_id}`;
  if (err) return ` ${err.error_code}: ${err.message}`;
  if (e.type === 'RunCancelled' || e.type === 'RunCancelRequested') return ` ${d.reason ?? ''}`;
  return '';
}
