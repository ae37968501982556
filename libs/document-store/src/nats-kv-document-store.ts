import { jetstream, JetStreamApiCodes, JetStreamApiError, type JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { idToKey, keyToId } from './key-codec';
import { KvCompareAndSet } from './kv-compare-and-set';
import { KV_HISTORY, kvStreamConfig, readWriterRevision, kvWriterHeaders } from './kv-writer';
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
  /**
   * Revisions kept per key (default KV_HISTORY): a read takes the latest a writer made, past any the bus stored after
   * it (kv-writer.ts), so one such answer must not push the writer's out.
   */
  history?: number;
  /** Parallel reads while scanning a collection in find() (default 32). */
  scanConcurrency?: number;
}

/** A collection's bucket: its stream, its keys' subject prefix, and whether its messages are read by direct get. */
interface BucketAt {
  stream: string;
  prefix: string;
  direct: boolean;
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
  private readonly js: JetStreamClient;
  private readonly cas: KvCompareAndSet;
  private readonly buckets = new Map<string, Promise<BucketAt>>();
  private readonly collections = new Map<string, NatsKvCollection<object>>();
  private closed = false;
  readonly bucketPrefix: string;
  readonly history: number;
  readonly scanConcurrency: number;

  /** The connection stays owned by the caller: close() does not close it. */
  constructor(nc: NatsConnection, opts: NatsKvDocumentStoreOptions = {}) {
    this.js = jetstream(nc);
    this.cas = new KvCompareAndSet(nc);
    this.bucketPrefix = opts.bucketPrefix ?? 'rl_doc_';
    this.history = opts.history ?? KV_HISTORY;
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
    // Only keys a writer could have made (idToKey of their id): one the bus wrote under another encoding of an existing
    // id (a request's reply subject names any key) would list that document twice.
    return Object.keys(info.state.subjects ?? {}).map((subject) => subject.slice(prefix.length)).filter((key) => idToKey(keyToId(key)) === key);
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
  bucket(name: string): Promise<BucketAt> {
    if (this.closed) return Promise.reject(new DocumentStoreError('document store is closed'));
    let at = this.buckets.get(name);
    if (!at) {
      at = this.openBucket(`${this.bucketPrefix}${name}`, name);
      // A failed open (e.g. server unavailable) must not poison later attempts.
      at.catch(() => this.buckets.delete(name));
      this.buckets.set(name, at);
    }
    return at;
  }

  private async openBucket(bucket: string, name: string): Promise<BucketAt> {
    const jsm = await this.cas.manager();
    const stream = `KV_${bucket}`;
    // Created as @nats-io/kv creates a bucket, with no rollups (kvStreamConfig); the bootstrap creates them in production.
    const info = await jsm.streams.info(stream).catch(async (err: unknown) => {
      if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) throw err;
      return jsm.streams.add(kvStreamConfig(bucket, { history: this.history, description: `Runledger document collection "${name}"` }));
    });
    return { stream, prefix: `$KV.${bucket}.`, direct: info.config.allow_direct === true };
  }

  /**
   * A document's latest writer revision: its last message when a writer stored it (one read, as kv.get), else the
   * latest a writer stored before what the bus put after it (kv-writer.ts; every revision held is read). @internal
   */
  async readLatest(collection: string, id: string): Promise<{ revision: number; doc: { deleted: true } | { deleted: false; value: object } } | null> {
    const at = await this.bucket(collection);
    return readWriterRevision(await this.cas.manager(), at.stream, `${at.prefix}${idToKey(id)}`, at.direct);
  }

  /** An unconditional write of a document's JSON, marked as a writer's. @internal */
  async putJson(collection: string, id: string, json: string): Promise<number> {
    const at = await this.bucket(collection);
    const key = idToKey(id);
    return (await this.js.publish(`${at.prefix}${key}`, json, { headers: kvWriterHeaders(key) })).seq;
  }
}

class NatsKvCollection<T extends object> implements DocumentCollection<T> {
  constructor(
    private readonly store: NatsKvDocumentStore,
    private readonly name: string,
  ) {}

  /** The document a read found: null when it holds none (never written, or deleted: a tombstone is no document). */
  private async read(id: string): Promise<{ revision: number; doc: StoredDocument<T> | null } | null> {
    const latest = await this.store.readLatest(this.name, id);
    if (!latest) return null;
    const doc = latest.doc && !latest.doc.deleted ? { id, revision: latest.revision, value: latest.doc.value as T } : null;
    return { revision: latest.revision, doc };
  }

  async get(id: string): Promise<StoredDocument<T> | null> {
    validateId(id);
    return (await this.read(id))?.doc ?? null;
  }

  async create(id: string, value: T): Promise<{ created: boolean; doc: StoredDocument<T> }> {
    validateId(id);
    const json = serialised(value);
    // First as a key never written (one request), then over the tombstone the read finds, as kv.create does.
    let expectedRevision = 0;
    for (let attempt = 0; attempt < MAX_RACE_RETRIES; attempt++) {
      const revision = await this.store.compareAndSet(this.name, id, expectedRevision, json);
      if (revision !== null) return { created: true, doc: writtenDoc(id, revision, json) };
      const found = await this.read(id);
      if (found?.doc) return { created: false, doc: found.doc };
      // Deleted (or created and deleted) between our attempt and the read: create over what the read found.
      expectedRevision = found?.revision ?? 0;
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
    const current = (await this.read(id))?.doc;
    throw new DocumentConflictError({ collection: this.name, id, expectedRevision, actualRevision: current?.revision ?? null });
  }

  async put(id: string, value: T): Promise<StoredDocument<T>> {
    validateId(id);
    const json = serialised(value);
    return writtenDoc(id, await this.store.putJson(this.name, id, json), json);
  }

  async delete(id: string, expectedRevision?: number): Promise<boolean> {
    validateId(id);
    if (expectedRevision !== undefined) validateRevision(expectedRevision);
    for (let attempt = 0; attempt < MAX_RACE_RETRIES; attempt++) {
      const current = (await this.read(id))?.doc;
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
    const keys = await this.store.keys(this.name);
    const docs: StoredDocument<T>[] = [];
    for (let i = 0; i < keys.length; i += this.store.scanConcurrency) {
      const batch = keys.slice(i, i + this.store.scanConcurrency);
      const read = await Promise.all(batch.map((key) => this.read(keyToId(key))));
      // A key deleted after the listing reads back as null and is simply skipped; so is one only the bus wrote.
      for (const found of read) if (found?.doc) docs.push(found.doc);
    }
    return applyQuery(docs, query);
  }
}
