import { DocumentStoreError, type FilterValue, type FindOptions } from './types';

/**
 * Collection names become NATS stream names and MongoDB collection names, so they are
 * limited to a charset both accept without escaping.
 */
export const COLLECTION_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,62}$/;
/** Ids are stored as UTF-8; this bound keeps encoded NATS subjects far below server limits. */
export const MAX_ID_BYTES = 512;
/** Top-level field names usable in filters and sorts: no dots or `$`, which MongoDB would interpret. */
const FIELD_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]{0,127}$/;
// eslint-disable-next-line no-control-regex -- rejecting control characters is the point
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function validateCollectionName(name: unknown): string {
  if (typeof name !== 'string' || !COLLECTION_NAME_PATTERN.test(name)) {
    throw new DocumentStoreError(
      `invalid collection name ${JSON.stringify(name)}: use 1-63 characters, a letter first, then letters, digits, '_' or '-'`,
    );
  }
  return name;
}

export function validateId(id: unknown): string {
  if (typeof id !== 'string' || id.length === 0) {
    throw new DocumentStoreError(`invalid document id ${JSON.stringify(id)}: must be a non-empty string`);
  }
  if (CONTROL_CHARS.test(id)) {
    throw new DocumentStoreError(`invalid document id ${JSON.stringify(id)}: control characters are not allowed`);
  }
  // A lone surrogate cannot be encoded as UTF-8 and would not read back as the same id.
  if (LONE_SURROGATE.test(id)) {
    throw new DocumentStoreError(`invalid document id ${JSON.stringify(id)}: not well-formed Unicode`);
  }
  const bytes = Buffer.byteLength(id, 'utf8');
  if (bytes > MAX_ID_BYTES) {
    throw new DocumentStoreError(`invalid document id: ${bytes} UTF-8 bytes exceeds the limit of ${MAX_ID_BYTES}`);
  }
  return id;
}

export function validateRevision(revision: unknown, what = 'expectedRevision'): number {
  if (typeof revision !== 'number' || !Number.isSafeInteger(revision) || revision < 1) {
    throw new DocumentStoreError(`invalid ${what} ${String(revision)}: must be a positive integer`);
  }
  return revision;
}

/** Returns the JSON-normalised copy that every adapter stores and returns. */
export function normaliseValue<T extends object>(value: T): T {
  return JSON.parse(serialised(value)) as T;
}

/** The document's JSON text, after checking it is a JSON object (an adapter that stores text needs no second stringify). */
export function serialised<T extends object>(value: T): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new DocumentStoreError(`invalid document value: expected a JSON object, got ${Array.isArray(value) ? 'an array' : String(value)}`);
  }
  try {
    return JSON.stringify(value);
  } catch (err) {
    throw new DocumentStoreError(`invalid document value: not JSON-serialisable (${(err as Error).message})`);
  }
}

/** Validated find arguments, shared by the adapters. */
export interface FindQuery {
  filter: [field: string, value: FilterValue][];
  limit?: number;
  sort?: { field: string; direction: 1 | -1 };
}

function validateField(field: string, where: string): string {
  if (!FIELD_NAME_PATTERN.test(field)) {
    throw new DocumentStoreError(`invalid ${where} field ${JSON.stringify(field)}: use a top-level field name of letters, digits, '_' or '-'`);
  }
  return field;
}

export function validateFind<T>(filter: Record<string, unknown> | undefined, opts: FindOptions<T> | undefined): FindQuery {
  const entries: [string, FilterValue][] = [];
  for (const [field, value] of Object.entries(filter ?? {})) {
    // An undefined entry is what `{ ...maybe }` spreads produce; treat it as "no condition".
    if (value === undefined) continue;
    validateField(field, 'filter');
    const ok = value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
    if (!ok) {
      throw new DocumentStoreError(`invalid filter value for "${field}": only strings, finite numbers, booleans and null are supported`);
    }
    entries.push([field, value as FilterValue]);
  }
  const query: FindQuery = { filter: entries };
  if (opts?.limit !== undefined) {
    if (!Number.isSafeInteger(opts.limit) || opts.limit < 0) {
      throw new DocumentStoreError(`invalid limit ${String(opts.limit)}: must be a non-negative integer`);
    }
    query.limit = opts.limit;
  }
  if (opts?.sort) {
    const direction = opts.sort.direction;
    if (direction !== 1 && direction !== -1) throw new DocumentStoreError(`invalid sort direction ${String(direction)}: use 1 or -1`);
    query.sort = { field: validateField(opts.sort.field, 'sort'), direction };
  }
  return query;
}
