/** Server-rendered HTML for the operator console: escaped text, plain tables and forms, CSS only, no scripts. */
import { bidiShown, duration } from '../format';

export { duration };

/**
 * Text as HTML; a carriage return too (as &#13;), so none reaches a live update's event stream bare (live.ts sseEvent).
 * Bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), which would reorder a caller's text on the
 * operator's page, are shown escaped (`\u202e`), as the CLI shows them (format.ts printable).
 */
export function esc(v: unknown): string {
  return bidiShown(String(v ?? '').replace(/[&<>"'\r]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '\r': '&#13;' })[c]!));
}

const STYLE = `body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse;margin:.5em 0}
td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}th{background:#f3f3f3}
.failed,.denied,.error{color:#b00}.completed,.ok{color:#070}.cancelled{color:#a60}nav a{margin-right:1em}
form.inline{display:inline}fieldset{border:1px solid #ddd;margin:.5em 0}code,pre{font-size:12px}pre{white-space:pre-wrap;margin:0}
#result{padding:.5em;border:1px solid #ccc;background:#fafafa}
.wf{position:relative;border-left:1px solid #999;margin:.5em 0 1em}.wf .row{display:flex;align-items:center;height:20px}
.wf .label{width:22em;overflow:hidden;white-space:nowrap;text-overflow:ellipsis;font-size:12px;padding-right:.5em}
.wf .track{position:relative;flex:1;height:14px;background:#f6f6f6}
.wf .bar{position:absolute;height:14px;min-width:2px;background:#69c;font-size:11px;color:#fff;white-space:nowrap;overflow:visible}
.wf .bar.run{background:#36a}.wf .bar.tool{background:#c80}.wf .bar.step{background:#6a6}.wf .bar.llm{background:#86c}.wf .bar.failed,.wf .bar.denied{background:#b33}
.wf .bar span{position:absolute;left:100%;padding-left:4px;color:#333}`;

export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)} · Runledger</title><style>${STYLE}</style></head>
<body><nav><a href="/">Runs</a><a href="/approvals">Approvals</a><a href="/deadletters">Dead letters</a><a href="/audit">Audit</a><a href="/dashboards">Dashboards</a><a href="/actions">Operator actions</a></nav>
<h1>${esc(title)}</h1>${body}</body></html>`;
}

/** `cells` are HTML already (escape what you put in them). */
export function table(headers: string[], rows: string[][], id?: string): string {
  if (!rows.length) return `<p class="empty"${id ? ` id="${esc(id)}-empty"` : ''}>none</p>`;
  return `<table${id ? ` id="${esc(id)}"` : ''}><thead><tr>${headers.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
}

/** A POST form with the session's CSRF token; `fields` are HTML inputs. */
export function postForm(action: string, csrf: string, fields: string, button: string, cls = 'inline'): string {
  return `<form class="${cls}" method="post" action="${esc(action)}"><input type="hidden" name="csrf" value="${esc(csrf)}">${fields}<button type="submit">${esc(button)}</button></form>`;
}

export const hidden = (name: string, value: string) => `<input type="hidden" name="${esc(name)}" value="${esc(value)}">`;

/** The outcome of an action, shown at the top of the page it returns to. */
export const result = (ok: boolean, text: string) => `<p id="result" class="${ok ? 'ok' : 'error'}">${esc(text)}</p>`;

/** A JSON value that opens in full (details/summary: no script). */
export function json(value: unknown, summary = 'show'): string {
  return `<details><summary>${esc(summary)}</summary><pre>${esc(JSON.stringify(value, null, 2))}</pre></details>`;
}

export function traceLink(traceId: string | null | undefined): string {
  const base = process.env.JAEGER_UI_URL;
  if (!traceId) return '-';
  return base ? `<a class="trace" rel="noreferrer" href="${esc(`${base.replace(/\/$/, '')}/trace/${traceId}`)}">${esc(traceId)}</a>` : `<code>${esc(traceId)}</code>`;
}
