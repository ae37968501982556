/** Server-rendered HTML for the operator console: escaped text, plain tables, no scripts. */
import { settingText } from '@runledger/kernel';

export function esc(v: unknown): string {
  return String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)} · Runledger</title>
<style>body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}.failed,.denied{color:#b00}.completed{color:#070}.cancelled{color:#a60}nav a{margin-right:1em}.child{margin-left:2em;border-left:3px solid #ddd;padding-left:1em}code{font-size:12px}</style>
</head><body><nav><a href="/console">Runs</a><a href="/console/audit">Audit</a><a href="/console/deadletters">Dead letters</a><a href="/console/approvals">Approvals</a></nav>
<h1>${esc(title)}</h1>${body}</body></html>`;
}

export function table(headers: string[], rows: string[][], id?: string): string {
  if (!rows.length) return '<p class="empty">none</p>';
  return `<table${id ? ` id="${esc(id)}"` : ''}><thead><tr>${headers.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
}

export const duration = (ms: number | null | undefined): string => (ms === null || ms === undefined ? '-' : ms < 1_000 ? `${ms} ms` : `${(ms / 1_000).toFixed(1)} s`);

export function jaegerLink(traceId: string | null | undefined): string {
  const base = settingText('JAEGER_UI_URL');
  if (!traceId) return '-';
  return base ? `<a class="trace" href="${esc(`${base.replace(/\/$/, '')}/trace/${traceId}`)}">${esc(traceId)}</a>` : `<code>${esc(traceId)}</code>`;
}
