/** Thrown when a value has no canonical JSON form (so it cannot be hashed stably). */
export class CanonicalJsonError extends Error {
  constructor(readonly path: string, problem: string) {
    super(`${path}: ${problem}`);
    this.name = 'CanonicalJsonError';
  }
}

/**
 * The canonical JSON text of a value: object keys sorted by UTF-16 code units (as RFC 8785),
 * no whitespace, arrays in order, object members whose value is `undefined` dropped.
 *
 * Only JSON data is accepted: plain objects, arrays, strings, booleans, null and finite numbers.
 * Anything else (NaN, Infinity, bigint, functions, symbols, Dates, typed arrays, class instances,
 * cycles) throws {@link CanonicalJsonError} rather than being silently coerced, because two
 * different values coercing to the same text would share a hash.
 * `undefined` inside an array becomes `null`, as JSON.stringify does, so indices keep their meaning.
 *
 * The text is exactly what JSON.stringify writes for each string and number (the chain's hashes of every release
 * depend on it; audit-chain.unit.spec pins them). The audit ledger runs this twice per chained event (its data
 * digest and its entry hash), so it keeps no path while it writes (the way to a refused value is collected only when
 * one is refused) and writes a string without escapes without calling JSON.stringify: 2× faster (issue 22).
 */
export function canonicalJson(value: unknown): string {
  try {
    return write(value, []);
  } catch (err) {
    if (!(err instanceof Refused)) throw err;
    const at = err.way.reverse();
    throw new CanonicalJsonError(`$${at.map((k) => (typeof k === 'number' ? `[${k}]` : `.${k}`)).join('')}`, err.problem);
  }
}

/** A value with no canonical form, found while writing; `way` is filled in (innermost first) as the writers unwind. */
class Refused {
  readonly way: Array<string | number> = [];
  constructor(readonly problem: string) {}
}

/** A string JSON.stringify would write with an escape: a quote, a backslash, a control character or a surrogate (a lone one is escaped). */
// eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function quoted(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/** Member names repeat from event to event (the same contracts): their quoted text is kept, up to a bound. */
const QUOTED_KEYS = new Map<string, string>();
const QUOTED_KEYS_KEPT = 2048;

function quotedKey(key: string): string {
  let text = QUOTED_KEYS.get(key);
  if (text === undefined) {
    text = quoted(key);
    if (QUOTED_KEYS.size < QUOTED_KEYS_KEPT && key.length <= 64) QUOTED_KEYS.set(key, text);
  }
  return text;
}

/** `ancestors`: the objects being written around the value (a cycle repeats one of them). */
function write(value: unknown, ancestors: object[]): string {
  switch (typeof value) {
    case 'string':
      return quoted(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new Refused(`non-finite number ${String(value)}`);
      return `${value}`; // as JSON.stringify: also maps -0 to 0
    case 'object':
      if (value === null) return 'null';
      return writeObject(value, ancestors);
    default:
      throw new Refused(`${typeof value} is not JSON data`);
  }
}

function writeObject(value: object, ancestors: object[]): string {
  if (ancestors.includes(value)) throw new Refused('cycle');
  ancestors.push(value);
  let text: string;
  if (Array.isArray(value)) {
    text = '[';
    let i = 0;
    try {
      for (; i < value.length; i++) {
        const item: unknown = value[i];
        if (i) text += ',';
        text += item === undefined ? 'null' : write(item, ancestors);
      }
    } catch (err) {
      if (err instanceof Refused) err.way.push(i);
      throw err;
    }
    text += ']';
  } else {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) throw new Refused('only plain objects are JSON data');
    const record = value as Record<string, unknown>;
    const keys = sortedInPlace(Object.keys(record));
    text = '{';
    let key = '';
    try {
      for (let i = 0; i < keys.length; i++) {
        key = keys[i];
        const member = record[key];
        if (member === undefined) continue;
        if (text.length > 1) text += ',';
        text += `${quotedKey(key)}:${write(member, ancestors)}`;
      }
    } catch (err) {
      if (err instanceof Refused) err.way.push(key);
      throw err;
    }
    text += '}';
  }
  ancestors.pop();
  return text;
}

/**
 * `keys` in UTF-16 code unit order (RFC 8785's, and Array.prototype.sort's default), sorted where they are: an
 * object's few keys, often in order already, need no copy (the default sort copies every array it sorts: a tenth of
 * the audit ledger's allocations, issue 22).
 */
function sortedInPlace(keys: string[]): string[] {
  // Insertion sort is quadratic: a large object (a caller's parameters) gets the default sort.
  if (keys.length > 32) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i];
    let j = i - 1;
    if (keys[j] <= key) continue;
    while (j >= 0 && keys[j] > key) {
      keys[j + 1] = keys[j];
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}
