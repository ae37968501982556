import { Kvm, type KV, type KvEntry } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { idToKey, keyToId } from './key-codec';
import { KvCompareAndSet } from './kv-compare-and-set';
import { applyQuery } from './query';
import {
  DocumentConflictError,
  DocumentStoreError,
  type DocumentCollection,
  type DocumentStore,
  type FindOptions,
  type StoredDocument,
} from './types';
import { serialised, validateCollectionName, validateFind, validateId, validateRevision } from './validation';

/** Options for {@link NatsKvDocumentStore}. */
export interface NatsKvDocumentStoreOptions {
  /** Prefix of the KV bucket backing each collection (default 'rl_doc_'). */
  bucketPrefix?: string;
  /** Values kept per key (default 1: only the latest is ever read; raise it for debugging history). */
  history?: number;
  /** Parallel reads while scanning a collection in find() (default 32). */
  scanConcurrency?: number;
}

/** How many times a write that raced with a concurrent delete is retried before giving up. */
const MAX_RACE_RETRIES = 5;

/**
 * A document as written: its value is the stored JSON parsed again (the same normalised copy a read returns), made
 * only when a caller reads it — most writers (projections, the ledger's rows) never do.
 */
function writtenDoc<T>(id: string, revision: number, json: string): StoredDocument<T> {
  let value: T | undefined;
  return {
    id,
    revision,
    get value(): T {
      return (value ??= JSON.parse(json) as T);
    },
    // Assignable, as the plain document a read returns.
    set value(v: T) {
      value = v;
    },
  };
}

/**
 * The embedded default document store: one JetStream KV bucket per collection
 * (`rl_doc_<name>`), revision = KV revision, so no extra database is needed.
 * find() scans every key of the bucket and filters in memory — fine for the
 * hundreds-to-low-thousands of documents per collection Runledger keeps; use the
 * MongoDB adapter for larger or query-heavy collections.
 */
export class NatsKvDocumentStore implements DocumentStore {
  readonly kind = 'nats-kv' as const;
  private readonly kvm: Kvm;
  private readonly cas: KvCompareAndSet;
  private readonly buckets = new Map<string, Promise<KV>>();
  private readonly collections = new Map<string, NatsKvCollection<object>>();
  private closed = false;
  readonly bucketPrefix: string;
  readonly history: number;
  readonly scanConcurrency: number;

  /** The connection stays owned by the caller: close() does not close it. */
  constructor(nc: NatsConnection, opts: NatsKvDocumentStoreOptions = {}) {
    this.kvm = new Kvm(nc);
    this.cas = new KvCompareAndSet(nc);
    this.bucketPrefix = opts.bucketPrefix ?? 'rl_doc_';
    this.history = opts.history ?? 1;
    this.scanConcurrency = opts.scanConcurrency ?? 32;
    if (!/^[-\w]*$/.test(this.bucketPrefix)) throw new DocumentStoreError(`invalid bucketPrefix "${this.bucketPrefix}"`);
    validateRevision(this.history, 'history');
  }

  collection<T extends object>(name: string): DocumentCollection<T> {
    validateCollectionName(name);
    let col = this.collections.get(name);
    if (!col) {
      col = new NatsKvCollection<object>(this, name);
      this.collections.set(name, col);
    }
    return col as unknown as DocumentCollection<T>;
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /**
   * The keys of a collection that hold a value or a tombstone, from its stream's subject list (one info request,
   * paged by the client). Not kv.keys(): that creates a consumer, which no service may (deploy/nats/permissions.yaml:
   * a consumer's body could make it push the bucket anywhere). @internal
   */
  async keys(name: string): Promise<string[]> {
    await this.bucket(name); // created on first use, as every other operation does
    const bucket = `${this.bucketPrefix}${name}`;
    const prefix = `$KV.${bucket}.`;
    const info = await (await this.cas.manager()).streams.info(`KV_${bucket}`, { subjects_filter: `${prefix}>` });
    return Object.keys(info.state.subjects ?? {}).map((subject) => subject.slice(prefix.length));
  }

  /**
   * Where a document's revisions are stored: its bucket's stream and its key's subject. For whoever must act on the
   * stored messages themselves (`runledger erase` erases them securely, README "Erasure").
   */
  storedAt(collection: string, id: string): { stream: string; subject: string } {
    validateCollectionName(collection);
    validateId(id);
    const bucket = `${this.bucketPrefix}${collection}`;
    return { stream: `KV_${bucket}`, subject: `$KV.${bucket}.${idToKey(id)}` };
  }

  /**
   * Writes a document's value (`null`: deletes it) if its last revision is `expectedRevision` (0: no message);
   * the new revision, or null when another write took that revision. See KvCompareAndSet. @internal
   */
  async compareAndSet(collection: string, id: string, expectedRevision: number, json: string | null): Promise<number | null> {
    await this.bucket(collection);
    return this.cas.write(this.storedAt(collection, id), expectedRevision, json);
  }

  /** Opens (creating on first use) the bucket of a collection. @internal */
  bucket(name: string): Promise<KV> {
    if (this.closed) return Promise.reject(new DocumentStoreError('document store is closed'));
    let kv = this.buckets.get(name);
    if (!kv) {
      kv = this.kvm.create(`${this.bucketPrefix}${name}`, {
        history: this.history,
        description: `Runledger document collection "${name}"`,
      });
      // A failed open (e.g. server unavailable) must not poison later attempts.
      kv.catch(() => this.buckets.delete(name));
      this.buckets.set(name, kv);
    }
    return kv;
  }
}

class NatsKvCollection<T extends object> implements DocumentCollection<T> {
  constructor(
    private readonly store: NatsKvDocumentStore,
    private readonly name: string,
  ) {}

  private toDoc(id: string, entry: KvEntry | null): StoredDocument<T> | null {
    // Deletes are tombstones (DEL/PURGE entries), not absent keys.
    if (!entry || entry.operation !== 'PUT') return null;
    return { id, revision: entry.revision, value: entry.json<T>() };
  }

  private async read(kv: KV, id: string): Promise<StoredDocument<T> | null> {
    return this.toDoc(id, await kv.get(idToKey(id)));
  }

  async get(id: string): Promise<StoredDocument<T> | null> {
    validateId(id);
    return this.read(await this.store.bucket(this.name), id);
  }

  async create(id: string, value: T): Promise<{ created: boolean; doc: StoredDocument<T> }> {
    validateId(id);
    const json = serialised(value);
    const kv = await this.store.bucket(this.name);
    // First as a key never written (one request), then over the tombstone the read finds, as kv.create does.
    let expectedRevision = 0;
    for (let attempt = 0; attempt < MAX_RACE_RETRIES; attempt++) {
      const revision = await this.store.compareAndSet(this.name, id, expectedRevision, json);
      if (revision !== null) return { created: true, doc: writtenDoc(id, revision, json) };
      const entry = await kv.get(idToKey(id));
      const existing = this.toDoc(id, entry);
      if (existing) return { created: false, doc: existing };
      // Deleted (or created and deleted) between our attempt and the read: create over what the read found.
      expectedRevision = entry?.revision ?? 0;
    }
    throw new Error(`create of "${id}" in "${this.name}" kept racing with concurrent deletes`);
  }

  async replace(id: string, value: T, expectedRevision: number): Promise<StoredDocument<T>> {
    validateId(id);
    validateRevision(expectedRevision);
    const json = serialised(value);
    // One write per revision, also on a cluster. (A caller could only pass a tombstone's revision by guessing it,
    // since get() never returns deleted documents.)
    const revision = await this.store.compareAndSet(this.name, id, expectedRevision, json);
    if (revision !== null) return writtenDoc(id, revision, json);
    const current = await this.read(await this.store.bucket(this.name), id);
    throw new DocumentConflictError({ collection: this.name, id, expectedRevision, actualRevision: current?.revision ?? null });
  }

  async put(id: string, value: T): Promise<StoredDocument<T>> {
    validateId(id);
    const json = serialised(value);
    const kv = await this.store.bucket(this.name);
    const revision = await kv.put(idToKey(id), json);
    return writtenDoc(id, revision, json);
  }

  async delete(id: string, expectedRevision?: number): Promise<boolean> {
    validateId(id);
    if (expectedRevision !== undefined) validateRevision(expectedRevision);
    const kv = await this.store.bucket(this.name);
    for (let attempt = 0; attempt < MAX_RACE_RETRIES; attempt++) {
      const current = await this.read(kv, id);
      if (!current) return false;
      if (expectedRevision !== undefined && current.revision !== expectedRevision) {
        throw new DocumentConflictError({ collection: this.name, id, expectedRevision, actualRevision: current.revision });
      }
      // Conditional on the revision just read, so "true" means we deleted that version.
      if ((await this.store.compareAndSet(this.name, id, current.revision, null)) !== null) return true;
      // Written or deleted concurrently: re-read and decide again.
    }
    throw new Error(`delete of "${id}" in "${this.name}" kept racing with concurrent writes`);
  }

  async find(filter?: Partial<Record<keyof T & string, unknown>>, opts?: FindOptions<T>): Promise<StoredDocument<T>[]> {
    const query = validateFind(filter as Record<string, unknown> | undefined, opts);
    if (query.limit === 0) return [];
    const kv = await this.store.bucket(this.name);
    const keys = await this.store.keys(this.name);
    const docs: StoredDocument<T>[] = [];
    for (let i = 0; i < keys.length; i += this.store.scanConcurrency) {
      const batch = keys.slice(i, i + this.store.scanConcurrency);
      const read = await Promise.all(batch.map((key) => this.read(kv, keyToId(key))));
      // A key deleted after the listing reads back as null and is simply skipped.
      for (const doc of read) if (doc) docs.push(doc);
    }
    return applyQuery(docs, query);
  }
}
