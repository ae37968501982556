import { truncateChars } from '@runledger/kernel';

/**
 * The storage port for read models and domain data. Values are JSON documents:
 * adapters store `JSON.parse(JSON.stringify(value))`, so Dates come back as ISO
 * strings and `undefined` fields disappear, identically on every adapter.
 */

/** A document with its revision. */
export interface StoredDocument<T> {
  id: string;
  /**
   * Positive integer that increases on every write of this document. Compare it only
   * for equality (optimistic concurrency): adapters differ in how far it jumps
   * (NATS KV uses the bucket sequence, MongoDB counts writes per document).
   */
  revision: number;
  value: T;
}

/** Scalar values accepted in {@link DocumentCollection.find} filters. */
export type FilterValue = string | number | boolean | null;

/** Options for {@link DocumentCollection.find}. */
export interface FindOptions<T> {
  /** Maximum number of documents returned (0 returns none). */
  limit?: number;
  /**
   * Sort by a top-level field, then by id ascending for ties. Mixed types order like
   * MongoDB: missing/null < numbers < strings < objects < arrays < booleans.
   */
  sort?: { field: keyof T & string; direction: 1 | -1 };
}

/** One named collection of JSON documents keyed by id. */
export interface DocumentCollection<T extends object> {
  /** The document, or null when absent or deleted. */
  get(id: string): Promise<StoredDocument<T> | null>;
  /** insert if absent; returns existing doc unchanged (created:false) when the id exists — idempotent creation. */
  create(id: string, value: T): Promise<{ created: boolean; doc: StoredDocument<T> }>;
  /** replace with optimistic concurrency: expectedRevision must equal the stored revision, else throws DocumentConflictError. */
  replace(id: string, value: T, expectedRevision: number): Promise<StoredDocument<T>>;
  /** unconditional upsert (read models rebuilt by projections). */
  put(id: string, value: T): Promise<StoredDocument<T>>;
  /**
   * Deletes the document; false when it did not exist. With `expectedRevision`, throws
   * DocumentConflictError when the document exists at another revision.
   */
  delete(id: string, expectedRevision?: number): Promise<boolean>;
  /**
   * equality filter on top-level fields; results ordered by id ascending unless sort given; limit optional.
   * Filter values must be scalars; `null` matches null or missing fields; a scalar never
   * matches an array field. Ids compare as UTF-8 bytes ('B' < 'a').
   */
  find(filter?: Partial<Record<keyof T & string, unknown>>, opts?: FindOptions<T>): Promise<StoredDocument<T>[]>;
}

/** A set of collections on one backend. */
export interface DocumentStore {
  /** Returns the collection; throws DocumentInvalidError synchronously for an invalid name. */
  collection<T extends object>(name: string): DocumentCollection<T>;
  /** Releases what the store owns; later operations reject with DocumentStoreError. */
  close(): Promise<void>;
  readonly kind: 'nats-kv' | 'mongodb';
}

/** Details attached to a {@link DocumentConflictError}. */
export interface ConflictDetails {
  collection: string;
  id: string;
  expectedRevision: number;
  /** The stored revision when the conflict was detected; null when the document does not exist. */
  actualRevision: number | null;
}

/** A write lost an optimistic-concurrency race: re-read, re-apply, retry. */
export class DocumentConflictError extends Error {
  readonly code = 'STORE.CONFLICT' as const;
  readonly collection: string;
  readonly id: string;
  readonly expectedRevision: number;
  readonly actualRevision: number | null;

  constructor(details: ConflictDetails) {
    const actual = details.actualRevision === null ? 'it does not exist' : `it is at revision ${details.actualRevision}`;
    super(
      `document "${details.id}" in collection "${details.collection}" was expected at revision ${details.expectedRevision} but ${actual}`,
    );
    this.name = 'DocumentConflictError';
    this.collection = details.collection;
    this.id = details.id;
    this.expectedRevision = details.expectedRevision;
    this.actualRevision = details.actualRevision;
  }
}

/** The store refused an operation: the caller's input is not storable (DocumentInvalidError), or the store is closed or misconfigured. */
export class DocumentStoreError extends Error {
  readonly code = 'STORE.INVALID' as const;

  constructor(message: string) {
    super(message);
    this.name = 'DocumentStoreError';
  }
}

/**
 * The caller's input is not storable (a collection name, document id, value, revision, filter, sort or limit the
 * store refuses): asking again with the same input gets the same refusal. `problem` says what is wrong in words a
 * caller may read (`invalid document id: must not hold control characters`), without the value; the message adds it.
 */
export class DocumentInvalidError extends DocumentStoreError {
  constructor(readonly problem: string, value?: unknown) {
    super(value === undefined ? problem : `${problem} (${truncated(value)})`);
    this.name = 'DocumentInvalidError';
  }
}

/** The refused value as the message shows it: JSON (control characters and lone surrogates escaped), at most 80 characters. */
function truncated(value: unknown): string {
  return truncateChars(JSON.stringify(value) ?? String(value), 80, { ellipsis: true });
}
