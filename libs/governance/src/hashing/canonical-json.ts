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
  return write(value, [], new Set());
}

/**
 * `at` is the way from the root (keys and indices), turned into a path text only for an error: the ledger hashes
 * every chained event, and building a path per member was a third of the work.
 */
type Way = Array<string | number>;

function pathOf(at: Way): string {
  return `$${at.map((k) => (typeof k === 'number' ? `[${k}]` : `.${k}`)).join('')}`;
}

function write(value: unknown, at: Way, stack: Set<object>): string {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new CanonicalJsonError(pathOf(at), `non-finite number ${String(value)}`);
      return JSON.stringify(value); // also maps -0 to 0
    case 'object':
      if (value === null) return 'null';
      return writeObject(value, at, stack);
    default:
      throw new CanonicalJsonError(pathOf(at), `${typeof value} is not JSON data`);
  }
}

function writeObject(value: object, at: Way, stack: Set<object>): string {
  if (stack.has(value)) throw new CanonicalJsonError(pathOf(at), 'cycle');
  stack.add(value);
  try {
    if (Array.isArray(value)) {
      let text = '[';
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        at.push(i);
        text += `${i ? ',' : ''}${item === undefined ? 'null' : write(item, at, stack)}`;
        at.pop();
      }
      return `${text}]`;
    }
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) {
      throw new CanonicalJsonError(pathOf(at), 'only plain objects are JSON data');
    }
    const record = value as Record<string, unknown>;
    let text = '{';
    // Default sort compares UTF-16 code units, which is the RFC 8785 order.
    for (const key of Object.keys(record).sort()) {
      const member = record[key];
      if (member === undefined) continue;
      at.push(key);
      text += `${text.length > 1 ? ',' : ''}${JSON.stringify(key)}:${write(member, at, stack)}`;
      at.pop();
    }
    return `${text}}`;
  } finally {
    stack.delete(value);
  }
}
