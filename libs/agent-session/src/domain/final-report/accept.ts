import { jsonrepair } from 'jsonrepair';
import type { ReportFormat } from '../types';
import { validateWithRepair } from './json-repair-loop';
import type { SchemaCheck } from './json-schema';

/** The model-provided part of a final report; status, source and ts are added by the session. */
export interface ReportBody {
  readonly format: ReportFormat;
  readonly content?: string;
  readonly content_json?: unknown;
  readonly messages?: readonly unknown[];
  readonly metadata?: Readonly<Record<string, unknown>>;
}

export type AcceptedReport =
  | { readonly ok: true; readonly body: ReportBody; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly error: string };

export interface ReportRules {
  readonly format: ReportFormat;
  /** `content_json` check for the json format (the output schema, or "an object"). */
  readonly check: SchemaCheck;
}

function decodeBase64(text: string): string {
  const binary = atob(text.replace(/\s+/g, ''));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

function stripCodeFence(text: string): string {
  const m = /^\s*```[a-zA-Z0-9_-]*\s*\n([\s\S]*?)\n?```\s*$/.exec(text);
  return m ? m[1]! : text;
}

function parseLenient(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  const body = stripCodeFence(text).trim();
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch (first) {
    try {
      return { ok: true, value: JSON.parse(jsonrepair(body)) };
    } catch {
      return { ok: false, error: first instanceof Error ? first.message : String(first) };
    }
  }
}

function jsonBody(value: unknown, rules: ReportRules, warnings: string[], metadata: ReportBody['metadata']): AcceptedReport {
  const outcome = validateWithRepair(value, rules.check);
  if (!outcome.ok) return { ok: false, error: `content_json does not match the expected schema: ${outcome.error}` };
  warnings.push(...outcome.repairs);
  return { ok: true, body: { format: 'json', content_json: outcome.value, ...(metadata ? { metadata } : {}) }, warnings };
}

function slackMessages(value: unknown): readonly unknown[] | undefined {
  const list = Array.isArray(value) ? value : (value as { messages?: unknown } | null)?.messages;
  return Array.isArray(list) && list.length > 0 ? list : undefined;
}

/**
 * Layer 2 of §11 and the §5 text fallback: turns a raw payload into the report body for the format.
 * `sub-agent` is passed through untouched; json is parsed and validated; slack expects messages.
 */
export function acceptReportText(text: string, rules: ReportRules, metadata?: ReportBody['metadata']): AcceptedReport {
  const meta = metadata ? { metadata } : {};
  if (rules.format === 'sub-agent') return { ok: true, body: { format: rules.format, content: text, ...meta }, warnings: [] };
  if (rules.format === 'json') {
    const parsed = parseLenient(text);
    if (!parsed.ok) return { ok: false, error: `the report is not valid JSON: ${parsed.error}` };
    return jsonBody(parsed.value, rules, [], metadata);
  }
  if (rules.format === 'slack-block-kit') {
    const parsed = parseLenient(text);
    const messages = parsed.ok ? slackMessages(parsed.value) : undefined;
    if (!messages) return { ok: false, error: 'slack-block-kit reports need a non-empty messages array' };
    return { ok: true, body: { format: rules.format, messages, ...meta }, warnings: [] };
  }
  if (text.trim() === '') return { ok: false, error: 'the report is empty' };
  return { ok: true, body: { format: rules.format, content: text.trim(), ...meta }, warnings: [] };
}

/** Validates `agent__final_report` arguments (§1, §5): encoding, decoding, format normalisation, body. */
export function acceptFinalReportArgs(args: Readonly<Record<string, unknown>>, rules: ReportRules): AcceptedReport {
  const warnings: string[] = [];
  if (args.format !== undefined && args.format !== rules.format) {
    // §5: a mismatched format is a warning and is normalised, never a failure.
    warnings.push(`format '${String(args.format)}' normalised to '${rules.format}'`);
  }
  const encoding = args.encoding ?? 'raw';
  if (encoding !== 'raw' && encoding !== 'base64') return { ok: false, error: `encoding must be raw or base64, got ${JSON.stringify(encoding)}` };
  let reportContent = args.report_content;
  if (reportContent !== undefined && typeof reportContent !== 'string') return { ok: false, error: 'report_content must be a string' };
  if (encoding === 'base64' && typeof reportContent === 'string') {
    try {
      reportContent = decodeBase64(reportContent);
    } catch {
      return { ok: false, error: 'report_content is not valid base64-encoded UTF-8' };
    }
  }
  let metadata: ReportBody['metadata'];
  if (args.metadata !== undefined) {
    if (typeof args.metadata === 'object' && args.metadata !== null && !Array.isArray(args.metadata)) metadata = args.metadata as Record<string, unknown>;
    else warnings.push('metadata ignored: not an object');
  }

  if (rules.format === 'json') {
    if (args.content_json !== undefined) return jsonBody(args.content_json, rules, warnings, metadata);
    if (typeof reportContent === 'string') return withWarnings(acceptReportText(reportContent, rules, metadata), warnings);
    return { ok: false, error: 'content_json is required for the json format' };
  }
  if (rules.format === 'slack-block-kit') {
    const fromContent = typeof reportContent === 'string' ? parseLenient(reportContent) : undefined;
    const messages = slackMessages(args.messages) ?? (fromContent?.ok ? slackMessages(fromContent.value) : undefined);
    if (!messages) return { ok: false, error: 'messages must be a non-empty array for the slack-block-kit format' };
    return { ok: true, body: { format: rules.format, messages, ...(metadata ? { metadata } : {}) }, warnings };
  }
  if (typeof reportContent !== 'string') return { ok: false, error: 'report_content is required' };
  return withWarnings(acceptReportText(reportContent, rules, metadata), warnings);
}

function withWarnings(r: AcceptedReport, warnings: readonly string[]): AcceptedReport {
  return r.ok ? { ...r, warnings: [...warnings, ...r.warnings] } : r;
}
