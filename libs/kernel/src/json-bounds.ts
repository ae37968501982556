/**
 * Structural bounds every request body obeys, checked before any handler, DTO transform or hash walks it:
 * recursive code (class-transformer, canonical hashing) must never meet a 10k-deep value or a key that
 * reaches an object's prototype.
 */
export const JSON_BOUNDS = {
  /** Nesting levels of objects and arrays in one request. */
  maxDepth: 32,
  /**
   * Keys that address prototypes rather than data: refused wherever they are in a request before any handler sees it.
   * Every other key named like an Object.prototype member (`toString` …) is refused by the request's validation, which
   * names each in its details (isPrototypeKey says which keys those are).
   */
  forbiddenKeys: ['__proto__', 'constructor', 'prototype'] as readonly string[],
} as const;

/**
 * What one walk of a decoded JSON value finds against the bounds. Paths are written as validation details write them
 * (`parameters.a.0.toString`), so a refusal reads the same wherever it is made.
 */
export interface JsonShape {
  /** The path of the first object or array at the nesting bound (the walk looks no deeper there), or null. */
  tooDeep: string | null;
  /**
   * The paths of keys named like an Object.prototype member (`__proto__`, `constructor`, `toString` …) or `prototype`:
   * keys that reach a prototype, or that class-transformer drops or trips on. Own keys only; not looked below.
   */
  prototypeKeys: readonly string[];
  /**
   * The path of the first string (key or value) that is not well-formed text: a lone UTF-16 surrogate, which JSON's
   * `\u` escapes can write and UTF-8 cannot hold (encoded, every one is U+FFFD: two different user ids would be one
   * stored id, probe finding); absent when there is none. Looked for with `text` (by default with `keys`: a request's
   * walk; stored JSON content is walked with `text` alone, jsonContentProblem).
   */
  illFormed?: string;
}

const NONE: readonly string[] = Object.freeze([]);

/**
 * One walk of a decoded JSON value for the bounds: its nesting, its prototype-named keys (`keys: false` for JSON
 * content whose keys are data) and its ill-formed text (`text`, by default as `keys`). Recursive, but never deeper than
 * `maxDepth`: a 10k-deep value cannot overflow the stack. A path is built only for a problem found.
 */
export function jsonShape(value: unknown, { maxDepth = JSON_BOUNDS.maxDepth, keys = true, text = keys }: { maxDepth?: number; keys?: boolean; text?: boolean } = {}): JsonShape {
  const shape: JsonShape = { tooDeep: null, prototypeKeys: NONE };
  walk(value, 0, [], shape, maxDepth, { keys, text });
  return shape;
}

/** Not in the ES2022 lib typings; Node 20 has it. */
export const wellFormedText = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

interface WalkRules { keys: boolean; text: boolean }

function walk(v: unknown, depth: number, at: Array<string | number>, shape: JsonShape, maxDepth: number, rules: WalkRules): void {
  if (typeof v === 'string') {
    if (rules.text && shape.illFormed === undefined && !wellFormedText(v)) shape.illFormed = at.join('.');
    return;
  }
  if (typeof v !== 'object' || v === null) return;
  if (depth >= maxDepth) {
    shape.tooDeep ??= at.join('.');
    return;
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      at.push(i);
      walk(v[i], depth + 1, at, shape, maxDepth, rules);
      at.pop();
    }
    return;
  }
  for (const key of Object.keys(v)) {
    at.push(key);
    if (rules.text && shape.illFormed === undefined && !wellFormedText(key)) shape.illFormed = at.join('.');
    if (rules.keys && isPrototypeKey(key)) {
      if (shape.prototypeKeys === NONE) shape.prototypeKeys = [];
      (shape.prototypeKeys as string[]).push(at.join('.'));
    } else walk((v as Record<string, unknown>)[key], depth + 1, at, shape, maxDepth, rules);
    at.pop();
  }
}

/** A key that names an Object.prototype member or a prototype. */
export function isPrototypeKey(key: string): boolean {
  return key in Object.prototype || key === 'prototype';
}

/**
 * The one wording of a field a request's contract does not name (or may not name), by its path (`a.b.0.c`): the
 * shape's prototype-named keys, a DTO's unknown fields, a JSON Schema contract's additional properties.
 */
export function unknownProperty(path: string): string {
  return `property ${path} should not exist`;
}

/** The problems of a shape in the words of validation details (`property a.b should not exist`), depth first. */
export function jsonShapeProblems({ tooDeep, prototypeKeys, illFormed }: JsonShape, maxDepth: number = JSON_BOUNDS.maxDepth): string[] {
  const problems = prototypeKeys.map(unknownProperty);
  if (illFormed !== undefined) problems.push(`${illFormed ? `property ${illFormed}` : 'the value'} is not well-formed text (a lone UTF-16 surrogate)`);
  if (tooDeep !== null) problems.unshift(`${tooDeep ? `property ${tooDeep}` : 'the value'} is nested deeper than ${maxDepth} levels`);
  return problems;
}

/**
 * JSON content a caller stores for runs to read (an ingested artifact) is held to the request's nesting bound, not to
 * its key rule (its keys are data: a form may have a `constructor` field). Its readers walk it recursively, as
 * JSON.stringify does: a 20,000-deep form overflows the stack of every one of them.
 */
export function jsonNestingProblem(value: unknown): string | null {
  return jsonShapeProblems(jsonShape(value, { keys: false }))[0] ?? null;
}

/**
 * What makes JSON content a caller stores for runs to read unusable: nesting beyond the request bound
 * (jsonNestingProblem), or a string or key that is not well-formed text (a lone UTF-16 surrogate, which JSON's `\u`
 * escapes can write: a run would copy it into a document, and db-write refuses it as a request boundary refuses it).
 * Checked at ingest, and again where a run reads the content (one stored before ingest checked it). Null when usable.
 */
export function jsonContentProblem(value: unknown): { tooDeep: true } | { illFormed: string } | null {
  const shape = jsonShape(value, { keys: false, text: true });
  if (shape.tooDeep !== null) return { tooDeep: true };
  // The path may itself hold the surrogate (a key): the problem is written in well-formed text.
  if (shape.illFormed !== undefined) return { illFormed: (jsonShapeProblems(shape)[0] as unknown as { toWellFormed(): string }).toWellFormed() };
  return null;
}

const utf8 = new TextEncoder();

/** Bytes of a value serialised as JSON (UTF-8): what it costs in every event that carries it. */
export function jsonByteLength(value: unknown): number {
  return utf8.encode(JSON.stringify(value) ?? '').length;
}
