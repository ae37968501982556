import { formatIssues, type SchemaCheck, type SchemaIssue } from './json-schema';

/** §1: "a small iterative repair loop" — a few passes are enough for nesting models actually produce. */
export const MAX_REPAIR_ITERATIONS = 3;

export type RepairOutcome =
  | { readonly ok: true; readonly value: unknown; readonly repairs: readonly string[] }
  | { readonly ok: false; readonly issues: readonly SchemaIssue[]; readonly error: string };

function pointerSegments(pointer: string): string[] {
  return pointer === '' ? [] : pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function getAt(root: unknown, segments: readonly string[]): unknown {
  let node = root;
  for (const seg of segments) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[seg];
  }
  return node;
}

function setAt(root: unknown, segments: readonly string[], value: unknown): unknown {
  if (segments.length === 0) return value;
  let node = root as Record<string, unknown>;
  for (const seg of segments.slice(0, -1)) node = node[seg] as Record<string, unknown>;
  node[segments.at(-1)!] = value;
  return root;
}

/** Only containers count as a repair: a string that merely parses as a number may be meant as a string. */
function parseContainer(text: string): unknown {
  const trimmed = text.trim();
  if (!(trimmed.startsWith('{') || trimmed.startsWith('['))) return undefined;
  try {
    const v: unknown = JSON.parse(trimmed);
    return typeof v === 'object' && v !== null ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Validates `value`, and while it fails, parses stringified JSON found exactly where the schema
 * complained (models often send nested objects as JSON strings). Stops when nothing is left to repair.
 */
export function validateWithRepair(value: unknown, check: SchemaCheck): RepairOutcome {
  // Work on a copy: the caller's value is the model's raw payload and is logged as given.
  let current: unknown = value === undefined ? undefined : JSON.parse(JSON.stringify(value));
  const repairs: string[] = [];
  for (let i = 0; i <= MAX_REPAIR_ITERATIONS; i++) {
    const issues = check(current);
    if (issues.length === 0) return { ok: true, value: current, repairs };
    if (i === MAX_REPAIR_ITERATIONS) return { ok: false, issues, error: formatIssues(issues) };
    let changed = false;
    for (const path of new Set(issues.map((x) => x.path))) {
      const segments = pointerSegments(path);
      const at = getAt(current, segments);
      const parsed = typeof at === 'string' ? parseContainer(at) : undefined;
      if (parsed !== undefined) {
        current = setAt(current, segments, parsed);
        repairs.push(`parsed stringified JSON at ${path || '(root)'}`);
        changed = true;
      }
    }
    if (!changed) return { ok: false, issues, error: formatIssues(issues) };
  }
  return { ok: false, issues: [], error: 'repair loop did not converge' };
}
