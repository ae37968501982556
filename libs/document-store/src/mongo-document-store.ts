import { MongoClient, MongoServerError, type Collection, type Db, type Document, type Filter, type Sort } from 'mongodb';
import {
  DocumentConflictError,
  DocumentStoreError,
  type DocumentCollection,
  type DocumentStore,
  type FindOptions,
  type StoredDocument,
} from './types';
import { normaliseValue, validateCollectionName, validateFind, validateId, validateRevision } from './validation';

/** Shape of every stored MongoDB document. */
interface MongoDoc<T> {
  _id: string;
  revision: number;
  value: T;
}

/** Options for {@link MongoDocumentStore}. */
export interface MongoDocumentStoreOptions {
  client: MongoClient;
  /** Database name; defaults to the one in the connection string, else 'runledger'. */
  dbName?: string;
  /** Close the client on close() (default true when the store created it via connect()). */
  ownsClient?: boolean;
}

const DUPLICATE_KEY = 11000;
const isDuplicateKey = (err: unknown) => err instanceof MongoServerError && err.code === DUPLICATE_KEY;

/**
 * Document store on MongoDB: one MongoDB collection per collection name, documents
 * `{ _id: id, revision, value }`, revision counting writes per document. Filters and
 * sorts run on the server; there are no secondary indexes, so add them operationally
 * for large collections. Needs MongoDB 4.2+ (pipeline updates); values whose keys start
 * with '$' or contain '.' need 5.0+.
 */
export class MongoDocumentStore implements DocumentStore {
  readonly kind = 'mongodb' as const;
  readonly db: Db;
  private readonly client: MongoClient;
  private readonly ownsClient: boolean;
  private closed = false;

  constructor(opts: MongoDocumentStoreOptions) {
    this.client = opts.client;
    this.db = opts.dbName ? opts.client.db(opts.dbName) : opts.client.db();
    this.ownsClient = opts.ownsClient ?? false;
  }

  /**
   * Creates a store with its own client. The driver connects lazily on the first
   * operation, so a wrong URL surfaces there rather than here.
   */
  static connect(url: string, dbName?: string): MongoDocumentStore {
    const client = new MongoClient(url, boundedWaits(url));
    // A URL without a path would otherwise land in MongoDB's 'test' database.
    const name = dbName ?? (client.options.dbName && client.options.dbName !== 'test' ? client.options.dbName : 'runledger');
    return new MongoDocumentStore({ client, dbName: name, ownsClient: true });
  }

  collection<T extends object>(name: string): DocumentCollection<T> {
    validateCollectionName(name);
    return new MongoCollection<T>(this, name, this.db.collection<MongoDoc<T>>(name));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsClient) await this.client.close();
  }

  /** @internal */
  assertOpen(): void {
    if (this.closed) throw new DocumentStoreError('document store is closed');
  }
}

class MongoCollection<T extends object> implements DocumentCollection<T> {
  constructor(
    private readonly store: MongoDocumentStore,
    private readonly name: string,
    private readonly coll: Collection<MongoDoc<T>>,
  ) {}

  private toDoc(d: MongoDoc<T> | null): StoredDocument<T> | null {
    return d ? { id: d._id, revision: d.revision, value: d.value } : null;
  }

  private byId(id: string): Filter<MongoDoc<T>> {
    return { _id: id } as Filter<MongoDoc<T>>;
  }

  async get(id: string): Promise<StoredDocument<T> | null> {
    validateId(id);
    this.store.assertOpen();
    return this.toDoc(await this.coll.findOne(this.byId(id)));
  }

  async create(id: string, value: T): Promise<{ created: boolean; doc: StoredDocument<T> }> {
    validateId(id);
    const normalised = normaliseValue(value);
    this.store.assertOpen();
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await this.coll.insertOne({ _id: id, revision: 1, value: normalised } as MongoDoc<T> as never);
        return { created: true, doc: { id, revision: 1, value: normalised } };
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
      const existing = await this.get(id);
      if (existing) return { created: false, doc: existing };
      // Deleted between the insert and the read: try again.
    }
    throw new Error(`create of "${id}" in "${this.name}" kept racing with concurrent deletes`);
  }

  async replace(id: string, value: T, expectedRevision: number): Promise<StoredDocument<T>> {
    validateId(id);
    validateRevision(expectedRevision);
    const normalised = normaliseValue(value);
    this.store.assertOpen();
    const updated = await this.coll.findOneAndReplace(
      { _id: id, revision: expectedRevision } as Filter<MongoDoc<T>>,
      { revision: expectedRevision + 1, value: normalised } as never,
      { returnDocument: 'after' },
    );
    if (updated) return this.toDoc(updated as MongoDoc<T>)!;
    const current = await this.get(id);
    throw new DocumentConflictError({ collection: this.name, id, expectedRevision, actualRevision: current?.revision ?? null });
  }

  async put(id: string, value: T): Promise<StoredDocument<T>> {
    validateId(id);
    const normalised = normaliseValue(value);
    this.store.assertOpen();
    // A pipeline update increments the revision and swaps the value in one atomic step.
    // $replaceWith replaces the whole document (a $set of an object could merge into the
    // old value), and $literal stops '$'-prefixed strings from being read as expressions.
    const pipeline: Document[] = [
      {
        $replaceWith: {
          _id: '$_id',
          revision: { $add: [{ $ifNull: ['$revision', 0] }, 1] },
          value: { $literal: normalised },
        },
      },
    ];
    for (let attempt = 0; ; attempt++) {
      try {
        const doc = await this.coll.findOneAndUpdate(this.byId(id), pipeline, { upsert: true, returnDocument: 'after' });
        return this.toDoc(doc as MongoDoc<T>)!;
      } catch (err) {
        // Two concurrent upserts of a new id: the loser hits the unique _id index; retry as an update.
        if (!isDuplicateKey(err) || attempt >= 2) throw err;
      }
    }
  }

  async delete(id: string, expectedRevision?: number): Promise<boolean> {
    validateId(id);
    if (expectedRevision !== undefined) validateRevision(expectedRevision);
    this.store.assertOpen();
    const filter = (expectedRevision === undefined ? { _id: id } : { _id: id, revision: expectedRevision }) as Filter<MongoDoc<T>>;
    const res = await this.coll.deleteOne(filter);
    if (res.deletedCount === 1) return true;
    if (expectedRevision === undefined) return false;
    const current = await this.get(id);
    if (!current) return false;
    throw new DocumentConflictError({ collection: this.name, id, expectedRevision, actualRevision: current.revision });
  }

  async find(filter?: Partial<Record<keyof T & string, unknown>>, opts?: FindOptions<T>): Promise<StoredDocument<T>[]> {
    const query = validateFind(filter as Record<string, unknown> | undefined, opts);
    this.store.assertOpen();
    if (query.limit === 0) return [];
    const mongoFilter: Document = {};
    for (const [field, value] of query.filter) {
      // Plain { f: x } would also match arrays containing x; the port promises scalar equality.
      mongoFilter[`value.${field}`] = { $eq: value, $not: { $type: 'array' } };
    }
    const sort: Sort = query.sort ? { [`value.${query.sort.field}`]: query.sort.direction, _id: 1 } : { _id: 1 };
    let cursor = this.coll.find(mongoFilter as Filter<MongoDoc<T>>).sort(sort);
    if (query.limit !== undefined) cursor = cursor.limit(query.limit);
    const docs = await cursor.toArray();
    return docs.map((d) => this.toDoc(d as MongoDoc<T>)!);
  }
}

/**
 * The driver's waits, bounded unless the URL sets them: by default it waits 30 s for a server and without end for a
 * socket, and a store call that never returns holds its caller for good (the ledger's batch, which is acked only once
 * its rows are written). 10 s for a server, 30 s for an answer.
 */
function boundedWaits(url: string): { serverSelectionTimeoutMS?: number; socketTimeoutMS?: number } {
  const given = (name: string) => new RegExp(`[?&]${name}=`, 'i').test(url);
  return {
    ...(given('serverSelectionTimeoutMS') ? {} : { serverSelectionTimeoutMS: 10_000 }),
    ...(given('socketTimeoutMS') ? {} : { socketTimeoutMS: 30_000 }),
  };
}
