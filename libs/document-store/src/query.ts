import type { StoredDocument } from './types';
import type { FindQuery } from './validation';

/**
 * In-memory evaluation of find() for adapters without a query engine (NATS KV).
 * The rules mirror what the MongoDB adapter pushes down to the server so both
 * adapters answer the same query the same way.
 */

/** Compares strings as UTF-8 bytes, which is how MongoDB orders string `_id`s. */
export function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function matches(value: Record<string, unknown>, filter: FindQuery['filter']): boolean {
  return filter.every(([field, expected]) => {
    const actual = value[field];
    // MongoDB: { f: null } also matches documents without f.
    if (expected === null) return actual === null || actual === undefined;
    return actual === expected;
  });
}

// MongoDB's BSON comparison order for the JSON types we can store.
function typeRank(v: unknown): number {
  if (v === null || v === undefined) return 1;
  if (typeof v === 'number') return 2;
  if (typeof v === 'string') return 3;
  if (Array.isArray(v)) return 5;
  if (typeof v === 'object') return 4;
  if (typeof v === 'boolean') return 6;
  return 7;
}

function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return compareUtf8(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  // Sorting on object/array fields is documented as unspecified; keep it deterministic.
  return compareUtf8(JSON.stringify(a ?? null), JSON.stringify(b ?? null));
}

/** Applies filter, sort (ties by id ascending) and limit to a full scan. */
export function applyQuery<T extends object>(docs: StoredDocument<T>[], query: FindQuery): StoredDocument<T>[] {
  const hits = docs.filter((d) => matches(d.value as Record<string, unknown>, query.filter));
  const sort = query.sort;
  hits.sort((x, y) => {
    if (sort) {
      const byField =
        compareValues((x.value as Record<string, unknown>)[sort.field], (y.value as Record<string, unknown>)[sort.field]) *
        sort.direction;
      if (byField !== 0) return byField;
    }
    return compareUtf8(x.id, y.id);
  });
  return query.limit === undefined ? hits : hits.slice(0, query.limit);
}
