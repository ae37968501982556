/** Plain-text rendering for people: aligned tables, durations, short ids. No colours (output is often piped). */

/**
 * What a terminal would act on instead of print: C0 controls (ESC starts a sequence that clears the screen or sets the
 * window title, CR overwrites the line, newline fakes one), DEL, C1 controls and the bidi embeddings, overrides and
 * isolates (U+202A–U+202E, U+2066–U+2069), which reorder what follows.
 */
const BIDI = '\\u202a-\\u202e\\u2066-\\u2069';
const DEL_AND_C1 = '\\u007f-\\u009f';
const UNPRINTABLE = new RegExp(`[\\u0000-\\u001f${DEL_AND_C1}${BIDI}]`, 'g');
/** The same, less what JSON.stringify already escapes (C0): what a JSON string may hold raw. */
const UNPRINTABLE_IN_JSON = new RegExp(`[${DEL_AND_C1}${BIDI}]`, 'g');
const BIDI_CONTROLS = new RegExp(`[${BIDI}]`, 'g');
const escaped = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * Any text a caller, a model or the log controls, as it may reach a person's terminal: every character above shown
 * escaped (`\u001b`), so the operator sees it was there and the terminal acts on none of it. Applied where a value is
 * rendered; the data is not changed. Idempotent (an escape is printable).
 */
export const printable = (text: string): string => text.replace(UNPRINTABLE, escaped);

/** printable, keeping the line breaks where the renderer itself shows a text on several lines (a reply, a report). */
export const printableLines = (text: string): string => text.split('\n').map(printable).join('\n');

/** Only the bidi controls shown escaped: for output whose medium escapes the rest itself (the console's HTML). */
export const bidiShown = (text: string): string => text.replace(BIDI_CONTROLS, escaped);

/** JSON for scripts that is also safe on a terminal: the same value (JSON.parse gives it back exactly), DEL, C1 and bidi controls escaped too. */
export const terminalJson = (value: unknown, indent?: number): string => JSON.stringify(value, null, indent).replace(UNPRINTABLE_IN_JSON, escaped);

export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '-';
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  return m < 60 ? `${m} min ${Math.round((ms % 60_000) / 1_000)} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** `2026-11-24T07:01:02.345Z` → `2026-11-24 07:01:02` (UTC, as recorded). */
export const time = (iso: string | null | undefined): string => (iso ? iso.replace('T', ' ').slice(0, 19) : '-');

/** Widest a table cell is shown (ids are 36): a longer value (a 257-character user id) is cut with an ellipsis, `--json` has it whole. */
export const CELL_MAX = 40;

export const clip = (text: string, max = CELL_MAX): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Aligned columns; every column but the last (which stretches nothing) is cut at CELL_MAX characters. */
export function table(headers: string[], cells: string[][]): string {
  const rows = cells.map((r) => r.map((c, i) => (i === r.length - 1 ? printable(c ?? '') : clip(printable(c ?? '')))));
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(headers), ...rows.map(line)].join('\n') + '\n';
}

export function jaegerLink(traceId: string | null | undefined): string | null {
  const base = process.env.JAEGER_UI_URL;
  return traceId && base ? `${base.replace(/\/$/, '')}/trace/${traceId}` : null;
}

/**
 * A recorded text as a person reads it. The log holds personal text sealed (README "Erasure"): the live feed and the
 * log as stored give the sealed value, which only a service holding the key opens (rl.runs.get does); an erased
 * owner's value reads as erased.
 */
export function recordedText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  if (typeof value === 'object' && 'sealed' in value) return '[sealed]';
  if (typeof value === 'object' && (value as { erased?: unknown }).erased === true) return '[erased]';
  return JSON.stringify(value);
}

/** A recorded error (a run's `error_code`, a session's `kind`) and its message: `CODE: message`, printable. */
export function errorText(error: unknown): string {
  if (typeof error !== 'object' || error === null || 'sealed' in error) return printable(recordedText(error));
  const err = error as { error_code?: unknown; code?: unknown; kind?: unknown; message?: unknown };
  const code = err.error_code ?? err.code ?? err.kind;
  const message = recordedText(err.message);
  return printable([typeof code === 'string' ? code : '', message].filter(Boolean).join(': '));
}

/** Whether an event's error message is sealed (the log as stored): the caller may ask rl.runs.get, which opens it. */
export const sealedErrorOf = (e: { data: unknown }): boolean => recordedText(((e.data ?? {}) as { error?: { message?: unknown } }).error?.message) === '[sealed]';

/** The one fact of an event an operator reads first, printable. */
export const eventDetail = (e: { type: string; data: unknown }): string => printable(detailOf(e));

function detailOf(e: { type: string; data: unknown }): string {
  const d = (e.data ?? {}) as Record<string, unknown>;

  if (e.type === 'AuthzDecided') return ` ${d.decision}${d.lane ? ` lane ${d.lane}` : ''}${d.action ? ` ${d.action}` : ''}${d.code ? ` (${d.code})` : ''}`;
  if (e.type === 'StepCompleted') return ` ${d.step_id}`;
  if (e.type === 'ToolCallRequested' || e.type === 'ToolCallRecorded') return ` ${d.tool_name ?? d.call_id}${d.status ? ` ${d.status}` : ''}`;
  if (e.type === 'ChildRunStarted') return ` ${d.agent_name} ${d.child_run_id}`;
  if (d.error !== undefined && d.error !== null) return ` ${errorText(d.error)}`;
  if (e.type === 'RunCancelled' || e.type === 'RunCancelRequested') return ` ${d.reason ?? ''}`;
  return '';
}
