import { DocumentInvalidError, validateFind, type DocumentCollection, type DocumentStore, type FindOptions, type StoredDocument } from '@runledger/document-store';
import type { SealedValue } from '@runledger/contracts';
import { type DataKeyStore, type DataOwner } from './data-keys';
import { isSealed, openSealed, openWithKey, sealJsonFor } from './sealed-values';

/**
 * The domain collections that hold a user's or a case's content (the rows db-write keeps and promotion reads):
 * their rows are sealed at rest with the owner's data key, like the log's events, so a row's bytes left on disk (a
 * revision the bucket dropped, a deleted row not yet compacted) are ciphertext once `runledger erase` destroys the
 * key (issue 23, README "Erasure"). The shared plane, campaign data and the read models are not personal rows.
 */
export const PERSONAL_COLLECTIONS: ReadonlySet<string> = new Set([
  'tasks', 'transcripts', 'interview_notes', 'facts', 'entities', 'coa_map', 'evidence_map', 'export_bundles', 'notes', 'maps',
]);

/** Fields that stay readable: ids, the partition owners, status and times (filters, erasure and replay need them). */
export const PLAIN_FIELDS: ReadonlySet<string> = new Set(['task_id', 'document_id', 'owner_id', 'case_id', 'status', 'created_at', 'completed_at', 'updated_at']);

/** Where a stored row keeps its sealed fields. */
export const SEALED_ROW_FIELD = 'sealed_fields';

type Row = Record<string, unknown>;

/** A row's owner: its case when it has one, else its user (the same rule as the log's events). */
function ownerOf(row: Row): DataOwner | null {
  if (typeof row.case_id === 'string' && row.case_id) return { kind: 'case', id: row.case_id };
  if (typeof row.owner_id === 'string' && row.owner_id) return { kind: 'user', id: row.owner_id };
  return null;
}

/**
 * A document store whose personal collections are sealed at rest: every field but `PLAIN_FIELDS` is sealed as one
 * value (`sealed_fields`) with the owner's data key on write and opened on read, so callers see plain documents.
 * Rows stored before sealing (plain) read as they are. Once the owner's key is destroyed a row reads as its plain
 * fields and `erased: true`, and a write for that owner is refused (DATA.ERASED). A filter on a sealed field is applied after
 * opening; a sort on one is refused (nothing sorts on content).
 */
export class SealedDocumentStore implements DocumentStore {
  readonly kind: DocumentStore['kind'];

  constructor(private readonly store: DocumentStore, private readonly keys: DataKeyStore) {
    this.kind = store.kind;
  }

  collection<T extends object>(name: string): DocumentCollection<T> {
    const inner = this.store.collection<T>(name);
    return PERSONAL_COLLECTIONS.has(name) ? new SealedCollection<T>(inner, this.keys) : inner;
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

/** A row as it is stored, and (when its content was sealed) the sealed value with the JSON it was sealed from. */
interface SealedRow<T> {
  row: T;
  sealed?: { value: SealedValue; json: string };
}

class SealedCollection<T extends object> implements DocumentCollection<T> {
  constructor(private readonly inner: DocumentCollection<T>, private readonly keys: DataKeyStore) {}

  private async seal(value: T): Promise<SealedRow<T>> {
    const row = value as Row;
    const owner = ownerOf(row);
    if (!owner) return { row: value };
    const plain: Row = {};
    const content: Row = {};
    for (const [field, v] of Object.entries(row)) (PLAIN_FIELDS.has(field) ? plain : content)[field] = v;
    if (!Object.keys(content).length) return { row: value };
    const json = JSON.stringify(content);
    const sealed = await sealJsonFor(this.keys, owner, json, false);
    return { row: { ...plain, [SEALED_ROW_FIELD]: sealed } as T, sealed: { value: sealed, json } };
  }

  /**
   * The row as callers see it (content opened). `written`: what this call sealed, so the row it just wrote is opened
   * from the JSON it sealed instead of decrypting it again (the owner's key state still looked up first: an erased
   * owner's row reads as erased, as ever); a stored value that differs in any byte is decrypted.
   */
  private async open(doc: StoredDocument<T>, written?: SealedRow<T>['sealed']): Promise<StoredDocument<T>> {
    const { [SEALED_ROW_FIELD]: sealed, ...plain } = doc.value as Row;
    if (!isSealed(sealed)) return doc;
    const content = written && sameSealed(sealed, written.value) ? await this.openWritten(sealed, written.json) : await openSealed(this.keys, sealed);
    return { id: doc.id, revision: doc.revision, value: { ...plain, ...(content as Row) } as T };
  }

  private async openWritten(sealed: SealedValue, json: string): Promise<unknown> {
    const key = await this.keys.stateOf(sealed.owner);
    return Buffer.isBuffer(key) ? JSON.parse(json) : openWithKey(key, sealed);
  }

  private async opened(doc: StoredDocument<T> | null): Promise<StoredDocument<T> | null> {
    return doc ? this.open(doc) : null;
  }

  async get(id: string): Promise<StoredDocument<T> | null> {
    return this.opened(await this.inner.get(id));
  }

  async create(id: string, value: T): Promise<{ created: boolean; doc: StoredDocument<T> }> {
    const written = await this.seal(value);
    const { created, doc } = await this.inner.create(id, written.row);
    return { created, doc: await this.open(doc, written.sealed) };
  }

  async replace(id: string, value: T, expectedRevision: number): Promise<StoredDocument<T>> {
    const written = await this.seal(value);
    return this.open(await this.inner.replace(id, written.row, expectedRevision), written.sealed);
  }

  async put(id: string, value: T): Promise<StoredDocument<T>> {
    const written = await this.seal(value);
    return this.open(await this.inner.put(id, written.row), written.sealed);
  }

  delete(id: string, expectedRevision?: number): Promise<boolean> {
    return this.inner.delete(id, expectedRevision);
  }

  async find(filter: Partial<Record<keyof T & string, unknown>> = {}, opts: FindOptions<T> = {}): Promise<StoredDocument<T>[]> {
    // The store's rules for every condition, also those applied here after opening: a field name it would refuse is
    // refused as bad input, not matched in memory.
    validateFind(filter, opts);
    if (opts.sort && !PLAIN_FIELDS.has(opts.sort.field)) throw new DocumentInvalidError('invalid sort field: it is sealed at rest', opts.sort.field);
    const pushed: Row = {};
    const after: Array<[string, unknown]> = [];
    for (const [field, v] of Object.entries(filter)) {
      if (PLAIN_FIELDS.has(field)) pushed[field] = v;
      else after.push([field, v]);
    }
    const docs = await Promise.all((await this.inner.find(pushed as typeof filter, after.length ? { sort: opts.sort } : opts)).map((d) => this.open(d)));
    if (!after.length) return docs;
    // The store's own rule for a filter value: null also matches a missing field.
    const hits = docs.filter((d) => after.every(([field, v]) => {
      const actual = (d.value as Row)[field];
      return v === null ? actual === null || actual === undefined : actual === v;
    }));
    return opts.limit === undefined ? hits : hits.slice(0, opts.limit);
  }
}

/** Whether two sealed values are the same bytes (owner, nonce, tag, ciphertext, text flag). */
function sameSealed(a: SealedValue, b: SealedValue): boolean {
  return a.owner === b.owner && a.iv === b.iv && a.tag === b.tag && a.ciphertext === b.ciphertext && !a.text === !b.text;
}
