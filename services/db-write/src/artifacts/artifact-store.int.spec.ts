import { connect, type NatsConnection } from '@nats-io/transport-node';
import { makeArtifactRef } from '@runledger/governance';
import { startNatsServer, type NatsServerHandle } from '@runledger/testing';
import { ArtifactStore } from './artifact-store';
import { createArtifactStore } from './artifact-store.provider';
import { GridFsArtifactStore } from './gridfs-artifact-store';
import { NatsObjectArtifactStore } from './nats-object-artifact-store';

jest.setTimeout(60_000);

/** The behaviour both adapters owe the port. */
function describeArtifactStoreContract(name: string, open: () => Promise<ArtifactStore>) {
  describe(`ArtifactStore contract: ${name}`, () => {
    let store: ArtifactStore;
    beforeAll(async () => (store = await open()));
    afterAll(async () => store?.close());

    const ref = (text: string, id: string) => makeArtifactRef({ artifact_id: id, kind: 'transcript', media_type: 'text/plain', case_id: 'case-1', bytes: new TextEncoder().encode(text) });
    const unique = () => `art-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;

    it('stores bytes with their reference and reads both back', async () => {
      const id = unique();
      const bytes = new TextEncoder().encode('a transcript of the first interview');
      expect(await store.putIfAbsent(ref('a transcript of the first interview', id), bytes)).toEqual({ ref: ref('a transcript of the first interview', id), created: true });
      const got = await store.get(id);
      expect(got?.ref).toEqual(ref('a transcript of the first interview', id));
      expect(Buffer.from(got!.bytes).toString('utf8')).toBe('a transcript of the first interview');
    });

    it('keeps the first reference when the id is put again (immutable artifacts)', async () => {
      const id = unique();
      const first = { ...ref('same bytes', id), name: 'first.txt' };
      await store.putIfAbsent(first, new TextEncoder().encode('same bytes'));
      expect(await store.putIfAbsent({ ...first, name: 'second.txt' }, new TextEncoder().encode('same bytes'))).toEqual({ ref: first, created: false });
      expect((await store.get(id))?.ref.name).toBe('first.txt');
    });

    it('stores binary and multi-chunk content intact, and answers null for an unknown id', async () => {
      const id = unique();
      const bytes = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 31) % 256);
      await store.putIfAbsent(makeArtifactRef({ artifact_id: id, kind: 'source_document', media_type: 'application/pdf', bytes }), bytes);
      expect(Buffer.compare(Buffer.from((await store.get(id))!.bytes), Buffer.from(bytes))).toBe(0);
      expect(await store.get(unique())).toBeNull();
    });
  });
}

describe('JetStream Object Store adapter', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect(server.connectOptions());
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  describeArtifactStoreContract('nats-object-store', async () => new NatsObjectArtifactStore(nc));

  it('is the adapter chosen without MONGO_URL, GridFS the one chosen with it', async () => {
    expect(createArtifactStore({ nc }, {})).toBeInstanceOf(NatsObjectArtifactStore);
    const gridfs = createArtifactStore({ nc }, { MONGO_URL: 'mongodb://127.0.0.1:1/runledger' });
    expect(gridfs).toBeInstanceOf(GridFsArtifactStore);
    await gridfs.close(); // never connected: closing must not throw
  });
});

// No MongoDB server runs on the development/CI machines: without MONGO_URL this suite is skipped, not faked.
const MONGO_URL = process.env.MONGO_URL;
if (MONGO_URL) describeArtifactStoreContract('gridfs', async () => GridFsArtifactStore.connect(MONGO_URL));
else describe.skip('ArtifactStore contract: gridfs (skipped: set MONGO_URL to a MongoDB server to run it)', () => it('needs MONGO_URL', () => undefined));
