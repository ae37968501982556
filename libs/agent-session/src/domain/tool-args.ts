import { jsonrepair } from 'jsonrepair';

/**
 * §1 Tool Request Parsing and Repair: `JSON.parse`, then `jsonrepair` + re-parse, then guarded fixes
 * (extract the first JSON object, close dangling braces). Deterministic, so a replay repairs the same way.
 */
export type ParsedArguments =
  | { readonly ok: true; readonly value: Record<string, unknown>; readonly repairs: readonly string[]; readonly repaired?: string }
  | { readonly ok: false; readonly error: string; readonly raw: string };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

function tryRepair(text: string): string | undefined {
  try {
    return jsonrepair(text);
  } catch {
    return undefined;
  }
}

/** The first balanced `{…}` in `text`, ignoring braces inside strings; unbalanced tails return undefined. */
export function extractFirstObject(text: string): string | undefined {
  const start = text.indexOf('{');
  if (start < 0) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return undefined;
}

/** Appends the closers a truncated object is missing, in nesting order. */
export function closeDanglingBraces(text: string): string {
  const stack: string[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') stack.push('}');
    else if (ch === '[') stack.push(']');
    else if ((ch === '}' || ch === ']') && stack.at(-1) === ch) stack.pop();
  }
  return (inString ? text + '"' : text) + stack.reverse().join('');
}

/** A parsed value is accepted only as an object; a JSON string holding an object is unwrapped once. */
function asObject(value: unknown, repairs: string[]): Record<string, unknown> | undefined {
  if (isPlainObject(value)) return value;
  if (typeof value === 'string') {
    const inner = tryParse(value);
    if (inner.ok && isPlainObject(inner.value)) {
      repairs.push('unwrapped double-encoded JSON string');
      return inner.value;
    }
  }
  return undefined;
}

export function parseToolArguments(raw: string): ParsedArguments {
  if (raw.trim() === '') return { ok: true, value: {}, repairs: ['empty arguments read as {}'], repaired: '{}' };
  const repairs: string[] = [];
  const first = tryParse(raw);
  if (first.ok) {
    const obj = asObject(first.value, repairs);
    if (obj) return repairs.length ? { ok: true, value: obj, repairs, repaired: JSON.stringify(obj) } : { ok: true, value: obj, repairs };
    return { ok: false, error: 'arguments must be a JSON object', raw };
  }

  const candidates: Array<[string, string | undefined]> = [['jsonrepair', tryRepair(raw)]];
  const extracted = extractFirstObject(raw);
  if (extracted !== undefined && extracted !== raw) candidates.push(['extracted the first JSON object', extracted]);
  const closed = closeDanglingBraces(raw);
  if (closed !== raw) candidates.push(['closed dangling braces', closed]);

  for (const [step, text] of candidates) {
    if (text === undefined) continue;
    const parsed = tryParse(text);
    const obj = parsed.ok ? asObject(parsed.value, repairs) : undefined;
    if (obj) return { ok: true, value: obj, repairs: [...repairs, step], repaired: text };
    // A guarded fix may itself need jsonrepair (e.g. a truncated object with a trailing comma).
    const repairedFix = step === 'jsonrepair' ? undefined : tryRepair(text);
    const again = repairedFix === undefined ? undefined : tryParse(repairedFix);
    const obj2 = again?.ok ? asObject(again.value, repairs) : undefined;
    if (obj2 && repairedFix !== undefined) return { ok: true, value: obj2, repairs: [...repairs, step, 'jsonrepair'], repaired: repairedFix };
  }
  return { ok: false, error: first.error, raw };
}
