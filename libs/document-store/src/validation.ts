import { documentIdProblem, MAX_DOCUMENT_ID_BYTES } from '@runledger/kernel';
import { DocumentInvalidError, type FilterValue, type FindOptions } from './types';

/**
 * Collection names become NATS stream names and MongoDB collection names, so they are
 * limited to a charset both accept without escaping.
 */
export const COLLECTION_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,62}$/;
/** Ids are stored as UTF-8; this bound keeps encoded NATS subjects far below server limits (kernel's one rule). */
export const MAX_ID_BYTES = MAX_DOCUMENT_ID_BYTES;
/** Top-level field names usable in filters and sorts: no dots or `$`, which MongoDB would interpret. */
const FIELD_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]{0,127}$/;

export function validateCollectionName(name: unknown): string {
  if (typeof name !== 'string' || !COLLECTION_NAME_PATTERN.test(name)) {
    throw new DocumentInvalidError("invalid collection name: use 1-63 characters, a letter first, then letters, digits, '_' or '-'", name);
  }
  return name;
}

/** The id as the store keeps it; the rule is kernel's documentIdProblem, which the DTOs carrying an id apply first. */
export function validateId(id: unknown): string {
  if (typeof id !== 'string') throw new DocumentInvalidError('invalid document id: must be a string', id);
  const problem = documentIdProblem(id);
  if (problem) throw new DocumentInvalidError(`invalid document id: ${problem}`, id);
  return id;
}

export function validateRevision(revision: unknown, what = 'expectedRevision'): number {
  if (typeof revision !== 'number' || !Number.isSafeInteger(revision) || revision < 1) {
    throw new DocumentInvalidError(`invalid ${what}: must be a positive integer`, revision);
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
    throw new DocumentInvalidError(`invalid document value: expected a JSON object, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`);
  }
  try {
    return JSON.stringify(value);
  } catch (err) {
    throw new DocumentInvalidError(`invalid document value: not JSON-serialisable (${(err as Error).name})`);
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
    throw new DocumentInvalidError(`invalid ${where} field name: use a top-level field name of letters, digits, '_' or '-'`, field);
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
      throw new DocumentInvalidError(`invalid filter value for "${field}": only strings, finite numbers, booleans and null are supported`);
    }
    entries.push([field, value as FilterValue]);
  }
  const query: FindQuery = { filter: entries };
  if (opts?.limit !== undefined) {
    if (!Number.isSafeInteger(opts.limit) || opts.limit < 0) {
      throw new DocumentInvalidError('invalid limit: must be a non-negative integer', opts.limit);
    }
    query.limit = opts.limit;
  }
  if (opts?.sort) {
    const direction = opts.sort.direction;
    if (direction !== 1 && direction !== -1) throw new DocumentInvalidError('invalid sort direction: use 1 or -1', direction);
    query.sort = { field: validateField(opts.sort.field, 'sort'), direction };
  }
  return query;
}
