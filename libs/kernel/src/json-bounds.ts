/**
 * Structural bounds every request body obeys, checked before any handler, DTO transform or hash walks it:
 * recursive code (class-transformer, canonical hashing) must never meet a 10k-deep value or a key that
 * reaches an object's prototype.
 */
export const JSON_BOUNDS = {
  /** Nesting levels of objects and arrays in one request. */
  maxDepth: 32,
  /** Keys that address prototypes rather than data. */
  forbiddenKeys: ['__proto__', 'constructor', 'prototype'] as readonly string[],
} as const;

/** The first structural problem of a decoded JSON value, or null. Iterative: a deep value cannot overflow the stack. */
export function jsonShapeProblem(value: unknown, { maxDepth = JSON_BOUNDS.maxDepth, forbiddenKeys = JSON_BOUNDS.forbiddenKeys }: { maxDepth?: number; forbiddenKeys?: readonly string[] } = {}): string | null {
  const stack: Array<{ v: unknown; depth: number; path: string }> = [{ v: value, depth: 0, path: '$' }];
  while (stack.length) {
    const { v, depth, path } = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= maxDepth) return `${path} is nested deeper than ${maxDepth} levels`;
    if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push({ v: item, depth: depth + 1, path: `${path}[${i}]` }));
      continue;
    }
    for (const key of Object.keys(v)) {
      if (forbiddenKeys.includes(key)) return `${path} has the forbidden key "${key}"`;
      stack.push({ v: (v as Record<string, unknown>)[key], depth: depth + 1, path: `${path}.${key}` });
    }
  }
  return null;
}

/**
 * JSON content a caller stores for runs to read (an ingested artifact) is held to the request's nesting bound, not to
 * its key rule (its keys are data: a form may have a `constructor` field). Its readers walk it recursively, as
 * JSON.stringify does: a 20,000-deep form overflows the stack of every one of them.
 */
export function jsonNestingProblem(value: unknown): string | null {
  return jsonShapeProblem(value, { forbiddenKeys: [] });
}

const utf8 = new TextEncoder();

/** Bytes of a value serialised as JSON (UTF-8): what it costs in every event that carries it. */
export function jsonByteLength(value: unknown): number {
  return utf8.encode(JSON.stringify(value) ?? '').length;
}
