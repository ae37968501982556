import { MongoClient } from 'mongodb';
import { describeDocumentStoreContract } from './document-store.contract';
import { MongoDocumentStore } from './mongo-document-store';

/**
 * Runs the shared contract against a real MongoDB when MONGO_URL is set
 * (e.g. MONGO_URL=mongodb://127.0.0.1:27017). No MongoDB server can run on the
 * development/CI machines, so without it the suite is skipped, not faked.
 */
const MONGO_URL = process.env.MONGO_URL;
const dbName = `runledger_contract_${Date.now().toString(36)}_${process.pid}`;

if (!MONGO_URL) {
  describe.skip('DocumentStore contract: mongodb (skipped: set MONGO_URL to a MongoDB server to run it)', () => {
    it('needs MONGO_URL', () => undefined);
  });
} else {
  jest.setTimeout(60_000);
  afterAll(async () => {
    // Each run uses its own database; drop it so repeated runs do not pile up.
    const client = new MongoClient(MONGO_URL);
    try {
      await client.db(dbName).dropDatabase();
    } finally {
      await client.close();
    }
  });
  describeDocumentStoreContract('mongodb', async () => MongoDocumentStore.connect(MONGO_URL, dbName));
}
