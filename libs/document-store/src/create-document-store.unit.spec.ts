import type { NatsConnection } from '@nats-io/transport-node';
import { createDocumentStore } from './create-document-store';
import { MongoDocumentStore } from './mongo-document-store';

// The MongoDB driver connects lazily on the first operation, so adapter selection and
// database naming can be checked without a MongoDB server (none can run here). The
// NATS KV default is covered in nats-kv.int.spec.ts with a real connection.
const unusedNats = {} as NatsConnection;

describe('createDocumentStore with mongoUrl', () => {
  it('selects MongoDB, with the database from options, else the URL, else "runledger"', async () => {
    const url = 'mongodb://127.0.0.1:1/fromurl';
    const explicit = createDocumentStore({ natsConnection: unusedNats, mongoUrl: url, mongoDb: 'chosen' });
    const fromUrl = createDocumentStore({ natsConnection: unusedNats, mongoUrl: url });
    const fallback = createDocumentStore({ natsConnection: unusedNats, mongoUrl: 'mongodb://127.0.0.1:1' });
    try {
      expect(explicit).toBeInstanceOf(MongoDocumentStore);
      expect(explicit.kind).toBe('mongodb');
      expect((explicit as MongoDocumentStore).db.databaseName).toBe('chosen');
      expect((fromUrl as MongoDocumentStore).db.databaseName).toBe('fromurl');
      expect((fallback as MongoDocumentStore).db.databaseName).toBe('runledger');
    } finally {
      await Promise.all([explicit.close(), fromUrl.close(), fallback.close()]);
    }
  });

  it('validates collection names before touching the server', () => {
    const store = createDocumentStore({ natsConnection: unusedNats, mongoUrl: 'mongodb://127.0.0.1:1' });
    expect(() => store.collection('system.users')).toThrow(/invalid collection name/);
  });
});
