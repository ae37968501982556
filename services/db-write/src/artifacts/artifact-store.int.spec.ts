import { connect, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Objm } from '@nats-io/obj';
import { makeArtifactRef } from '@runledger/governance';
import { objectMetaToken, objectNames, provisionBus } from '@runledger/messaging';
import { startNatsServer, type NatsServerHandle, waitUntil } from '@runledger/testing';
import { ARTIFACT_BUCKET, ArtifactStore } from './artifact-store';
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

  describe('what the bus stores on an artifact\'s subjects (a JetStream answer or a direct get\'s copy sent to a request\'s reply subject)', () => {
    const stream = `OBJ_${ARTIFACT_BUCKET}`;
    const meta = (id: string) => `$O.${ARTIFACT_BUCKET}.M.${objectMetaToken(id)}`;
    const held = async (subject: string) => (await (await jetstreamManager(nc)).streams.info(stream, { subjects_filter: subject })).state.subjects?.[subject] ?? 0;
    const storeAnswer = async (reply: string, request: string, body = '') => {
      const before = await held(reply);
      nc.publish(request, body, { reply });
      await waitUntil(async () => (await held(reply)) > before);
    };
    const artifact = (id: string, text: string) => makeArtifactRef({ artifact_id: id, kind: 'transcript', media_type: 'text/plain', case_id: 'case-1', bytes: new TextEncoder().encode(text) });

    beforeAll(async () => provisionBus(nc, { kvBuckets: [], objectStores: [ARTIFACT_BUCKET], replicas: 1 }));

    it('a value the bus stored on an artifact\'s description never hides it or stands in for it', async () => {
      const store = new NatsObjectArtifactStore(nc);
      await store.putIfAbsent(artifact('bus-a', 'interview a'), new TextEncoder().encode('interview a'));
      await store.putIfAbsent(artifact('bus-b', 'interview b'), new TextEncoder().encode('interview b'));
      await storeAnswer(meta('bus-a'), '$JS.API.INFO');
      await storeAnswer(meta('bus-a'), `$JS.API.DIRECT.GET.${stream}`, JSON.stringify({ last_by_subj: meta('bus-b') }));
      expect(Buffer.from((await store.get('bus-a'))!.bytes).toString('utf8')).toBe('interview a');
      expect((await store.putIfAbsent(artifact('bus-a', 'interview a'), new TextEncoder().encode('interview a'))).created).toBe(false);
      // A name only the bus wrote holds no artifact.
      await storeAnswer(meta('bus-none'), '$JS.API.INFO');
      expect(await store.get('bus-none')).toBeNull();
    });

    it('an object is listed once: a description subject the bus wrote under another encoding of its name (no padding) is not another object (review; erase listed it twice)', async () => {
      const store = new NatsObjectArtifactStore(nc);
      await store.putIfAbsent(artifact('bus-c', 'interview c'), new TextEncoder().encode('interview c'));
      const unpadded = objectMetaToken('bus-c').replace(/=+$/, '');
      await storeAnswer(`$O.${ARTIFACT_BUCKET}.M.${unpadded}`, '$JS.API.INFO');
      expect((await objectNames(await jetstreamManager(nc), ARTIFACT_BUCKET)).filter((n) => n === 'bus-c')).toEqual(['bus-c']);
    });

    it('a copy of a description an earlier release wrote (it rolls its subject up) cannot delete an artifact\'s chunks or description', async () => {
      const store = new NatsObjectArtifactStore(nc);
      const victim = await store.putIfAbsent(artifact('bus-victim', 'victim text'), new TextEncoder().encode('victim text'));
      // Written by @nats-io/obj (an earlier release): its description carries Nats-Rollup; it still reads.
      const os = await new Objm(nc).open(ARTIFACT_BUCKET);
      const jsm = await jetstreamManager(nc);
      await jsm.streams.update(stream, { ...(await jsm.streams.info(stream)).config, allow_rollup_hdrs: true });
      await os.putBlob({ name: 'bus-old', metadata: { artifact_ref: JSON.stringify(artifact('bus-old', 'old')) } }, new TextEncoder().encode('old'));
      await provisionBus(nc, { kvBuckets: [], objectStores: [ARTIFACT_BUCKET], replicas: 1 });
      expect(Buffer.from((await store.get('bus-old'))!.bytes).toString('utf8')).toBe('old');
      const copy = await jsm.direct.getMessage(stream, { last_by_subj: meta('bus-old') });
      expect(copy?.header.get('Nats-Rollup')).toBe('sub');
      const h = natsHeaders();
      for (const [k, v] of copy!.header) for (const value of v) h.append(k, value);
      const info = (await jsm.streams.getMessage(stream, { last_by_subj: meta('bus-victim') }))!.json<{ nuid: string }>();
      // What the server would store from a direct get of it answered to the victim's subjects: refused.
      for (const subject of [meta('bus-victim'), `$O.${ARTIFACT_BUCKET}.C.${info.nuid}`]) {
        await expect(jetstream(nc).publish(subject, copy!.data, { headers: h })).rejects.toThrow(/rollup/i);
      }
      expect((await store.get('bus-victim'))?.ref).toEqual(victim.ref);
    });
  });

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
