import type { NatsConnection } from '@nats-io/transport-node';
import type { MongoDocumentStore as MongoStore } from './mongo-document-store';
import { NatsKvDocumentStore, type NatsKvDocumentStoreOptions } from './nats-kv-document-store';
import type { DocumentStore } from './types';

/** Options for {@link createDocumentStore}. */
export interface CreateDocumentStoreOptions {
  /** Used by the default NATS KV adapter; not closed by the store. */
  natsConnection: NatsConnection;
  /** When set, documents live in MongoDB instead of NATS KV. */
  mongoUrl?: string;
  /** MongoDB database (default: the one in mongoUrl, else 'runledger'). */
  mongoDb?: string;
  /** Tuning for the NATS KV adapter. */
  natsKv?: NatsKvDocumentStoreOptions;
}

/**
 * Picks the adapter from configuration: MongoDB when `mongoUrl` is given (the store
 * then owns and closes its MongoClient), otherwise the embedded NATS KV store.
 */
export function createDocumentStore(opts: CreateDocumentStoreOptions): DocumentStore {
  if (opts.mongoUrl) {
    // Loaded only when configured: the driver is ~130 modules a service on the embedded store never needs.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { MongoDocumentStore } = require('./mongo-document-store') as { MongoDocumentStore: typeof MongoStore };
    return MongoDocumentStore.connect(opts.mongoUrl, opts.mongoDb);
  }
  return new NatsKvDocumentStore(opts.natsConnection, opts.natsKv);
}
