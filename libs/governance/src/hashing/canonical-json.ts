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
 */
export function canonicalJson(value: unknown): string {
  return write(value, '$', new Set());
}

function write(value: unknown, path: string, stack: Set<object>): string {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new CanonicalJsonError(path, `non-finite number ${String(value)}`);
      return JSON.stringify(value); // also maps -0 to 0
    case 'object':
      if (value === null) return 'null';
      return writeObject(value, path, stack);
    default:
      throw new CanonicalJsonError(path, `${typeof value} is not JSON data`);
  }
}

function writeObject(value: object, path: string, stack: Set<object>): string {
  if (stack.has(value)) throw new CanonicalJsonError(path, 'cycle');
  stack.add(value);
  try {
    if (Array.isArray(value)) {
      return `[${value.map((item, i) => (item === undefined ? 'null' : write(item, `${path}[${i}]`, stack))).join(',')}]`;
    }
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) {
      throw new CanonicalJsonError(path, 'only plain objects are JSON data');
    }
    const record = value as Record<string, unknown>;
    const members: string[] = [];
    // Default sort compares UTF-16 code units, which is the RFC 8785 order.
    for (const key of Object.keys(record).sort()) {
      if (record[key] === undefined) continue;
      members.push(`${JSON.stringify(key)}:${write(record[key], `${path}.${key}`, stack)}`);
    }
    return `{${members.join(',')}}`;
  } finally {
    stack.delete(value);
  }
}
