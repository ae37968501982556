import { connect, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { DiscardPolicy, jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { Objm } from '@nats-io/obj';
import { ensureKvBucket, KV_HISTORY, NatsKvDocumentStore } from '@runledger/document-store';
import { startNatsServer, type NatsServerHandle, waitUntil } from '@runledger/testing';
import { CachedDataKeys, DATA_KEYS_BUCKET, dataKeyName, KvDataKeyStore, provisionDataKeys } from './data-keys';
import { ERASED_TEXT, openSealed, sealFor } from './sealed-values';

jest.setTimeout(60_000);

/**
 * nats-server publishes a JetStream API answer, or a direct get's copy of a stored message, to whatever reply subject
 * a request names, and a bucket stores it when that subject is one of its keys (README, guarantees). Each attack is
 * made here as the insider makes it: a service identity (JetStream API rights, no right to publish on the key) sends
 * the request with the key's subject as its reply subject.
 */
describe('a value the bus stored on a key is no writer\'s value', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let insider: NatsConnection;
  let jsm: JetStreamManager;
  const KEYS_STREAM = `KV_${DATA_KEYS_BUCKET}`;
  const slot = (owner: { kind: 'user' | 'case'; id: string }) => `$KV.${DATA_KEYS_BUCKET}.${dataKeyName(owner)}`;

  /** How many messages the stream holds on a subject. */
  const held = async (stream: string, subject: string): Promise<number> =>
    (await jsm.streams.info(stream, { subjects_filter: subject })).state.subjects?.[subject] ?? 0;
  /** A request with `reply` as its reply subject; resolves once the stream stored the server's answer. */
  const storeAnswer = async (by: NatsConnection, stream: string, reply: string, request: string, body = ''): Promise<void> => {
    const before = await held(stream, reply);
    by.publish(request, body, { reply });
    await waitUntil(async () => (await held(stream, reply)) > before, { description: `${request} answered to ${reply}` });
  };
  /** The answer to the insider's account info request (`$JS.API.INFO`: every service may send it). */
  const storeInfo = (stream: string, reply: string) => storeAnswer(insider, stream, reply, '$JS.API.INFO');
  /** A direct get's copy of the last message on `of` (of `from`'s stream), sent by `by` (default: the insider). */
  const storeCopy = (stream: string, reply: string, of: string, by = insider, from = stream) =>
    storeAnswer(by, stream, reply, `$JS.API.DIRECT.GET.${from}`, JSON.stringify({ last_by_subj: of }));

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect(server.connectOptions());
    insider = await connect(server.connectOptions('decision'));
    jsm = await jetstreamManager(nc);
    await provisionDataKeys(nc);
  });
  afterAll(async () => {
    await insider?.close();
    await nc?.close();
    await server?.stop();
  });

  describe('data keys', () => {
    it('a value the bus stored never replaces a data key: the owner\'s sealed data still opens, in a fresh process and in one that cached the key', async () => {
      const keys = new KvDataKeyStore(nc);
      const ann = { kind: 'user' as const, id: 'u-ann' };
      const cached = new CachedDataKeys(new KvDataKeyStore(nc));
      const sealed = await sealFor(cached, ann, 'ann note');
      // Copied messages must carry no expected last sequence of their own (the server checks it on the slot they are
      // stored on, which refuses a copy of a key this store wrote onto a slot that holds one): what a `seal` service
      // publishes on other slots itself, a key and a tombstone's text.
      await jetstream(insider).publish(slot({ kind: 'user', id: 'u-keyholder' }), Buffer.alloc(32, 5).toString('base64'));
      await jetstream(insider).publish(slot({ kind: 'user', id: 'u-tomb' }), 'erased');
      // An answer, a copy of that key, and a copy of that tombstone, each stored after Ann's key.
      await storeInfo(KEYS_STREAM, slot(ann));
      await storeCopy(KEYS_STREAM, slot(ann), slot({ kind: 'user', id: 'u-keyholder' }));
      await storeCopy(KEYS_STREAM, slot(ann), slot({ kind: 'user', id: 'u-tomb' }));
      expect(await held(KEYS_STREAM, slot(ann))).toBe(4);
      expect(await openSealed(new KvDataKeyStore(nc), sealed)).toBe('ann note');
      // The follower read the tombstone's copy: the cached key is still there (it was not told the owner was erased).
      await waitUntil(async () => (await new KvDataKeyStore(nc).stateOf(dataKeyName(ann))) instanceof Buffer);
      expect(await openSealed(cached, sealed)).toBe('ann note');
      expect(await sealFor(cached, ann, 'more').then((s) => openSealed(keys, s))).toBe('more');
    });

    it('a slot the bus filled before its owner\'s first key still gets the owner\'s own key, and a copy of another owner\'s key is never taken as it', async () => {
      const keys = new KvDataKeyStore(nc);
      const a = { kind: 'user' as const, id: 'u-a' };
      const b = { kind: 'case' as const, id: 'case-b' };
      const aKey = await keys.keyFor(a);
      // The empty slot of B takes a copy of A's key (a direct get of A's slot answered to B's) and an answer.
      await storeCopy(KEYS_STREAM, slot(b), slot(a));
      await storeInfo(KEYS_STREAM, slot(b));
      expect(await keys.stateOf(dataKeyName(b))).toBe('absent');
      const bKey = await keys.keyFor(b);
      expect(bKey).toBeInstanceOf(Buffer);
      expect(bKey!.equals(aKey!)).toBe(false);
      // Every process reads the same key for B, and B's data opens with it and not with A's.
      const sealed = await sealFor(new CachedDataKeys(new KvDataKeyStore(nc)), b, 'case b data');
      expect(await openSealed(new KvDataKeyStore(nc), sealed)).toBe('case b data');
      expect((await new KvDataKeyStore(nc).keyFor(b))!.equals(bKey!)).toBe(true);
    });

    it('erasure removes every revision of a key, the bus\'s included, and nothing stored after the tombstone un-erases the owner', async () => {
      const keys = new KvDataKeyStore(nc);
      const eve = { kind: 'user' as const, id: 'u-eve' };
      await storeInfo(KEYS_STREAM, slot(eve));
      const sealed = await sealFor(keys, eve, 'eve note');
      await storeInfo(KEYS_STREAM, slot(eve));
      expect(await held(KEYS_STREAM, slot(eve))).toBe(3);
      await keys.destroy(eve);
      // One message left on the slot: the tombstone.
      expect(await held(KEYS_STREAM, slot(eve))).toBe(1);
      expect(await openSealed(keys, sealed)).toBe(ERASED_TEXT);
      // After it: an answer, and what a `seal` service's own publish permission allows (a key, a raw publish).
      await storeInfo(KEYS_STREAM, slot(eve));
      await new Kvm(insider).open(DATA_KEYS_BUCKET).then((kv) => kv.put(dataKeyName(eve), Buffer.alloc(32, 1).toString('base64')));
      await jetstream(insider).publish(slot(eve), 'erased-not');
      expect(await keys.stateOf(dataKeyName(eve))).toBe('erased');
      await expect(sealFor(keys, eve, 'after erasure')).rejects.toMatchObject({ code: 'DATA.ERASED' });
      // A second erasure erases those too.
      await keys.destroy(eve);
      expect(await held(KEYS_STREAM, slot(eve))).toBe(1);
    });

    it('a data-key bucket an earlier release created (one revision per key, discard-new) keeps its keys and tombstones when the bootstrap brings it to every revision kept', async () => {
      const bucket = 'rl_data_keys_earlier';
      const stream = `KV_${bucket}`;
      const kv = await new Kvm(nc).create(bucket, { history: 1 });
      await jsm.streams.update(stream, { discard: DiscardPolicy.New, discard_new_per_subject: true });
      // Written as the earlier release wrote them: no writer's marker.
      const key = Buffer.alloc(32, 9).toString('base64');
      await kv.create('user.old', key);
      await kv.create('user.gone', 'erased');
      const keys = new KvDataKeyStore(nc, bucket);
      // Before the bootstrap: an answer in an empty slot still takes its only place, said as before.
      const early = { kind: 'user' as const, id: 'early' };
      await storeInfo(stream, `$KV.${bucket}.${dataKeyName(early)}`);
      await expect(keys.keyFor(early)).rejects.toMatchObject({ code: 'DATA.KEY_UNUSABLE' });
      await ensureKvBucket(jsm, bucket, { history: -1 });
      const { config } = await jsm.streams.info(stream);
      expect(config).toMatchObject({ max_msgs_per_subject: -1, allow_rollup_hdrs: false });
      expect(config.discard_new_per_subject ?? false).toBe(false);
      await storeInfo(stream, `$KV.${bucket}.user.old`);
      expect(((await keys.stateOf('user.old')) as Buffer).toString('base64')).toBe(key);
      expect(await keys.stateOf('user.gone')).toBe('erased');
      // ... and the slot the answer filled gets its owner's key now.
      expect(await keys.keyFor(early)).toBeInstanceOf(Buffer);
    });
  });

  describe('document collections', () => {
    const bucket = 'rl_doc_tasks';
    const stream = `KV_${bucket}`;
    const subject = (id: string) => `$KV.${bucket}.${id}`;
    let store: NatsKvDocumentStore;

    beforeAll(async () => {
      // As the bootstrap creates a collection's bucket (provisionBus).
      await ensureKvBucket(jsm, bucket, { history: KV_HISTORY });
      store = new NatsKvDocumentStore(nc);
    });

    it('a value the bus stored never replaces a task document: it reads as the writer left it, is found, and its writer\'s next write goes past it', async () => {
      const tasks = store.collection<{ title: string }>('tasks');
      const written = await tasks.put('t-1', { title: 'call the clinic' });
      await tasks.put('t-other', { title: 'other' });
      await storeInfo(stream, subject('t-1'));
      // A copy of another document (by an identity that may read the collection: the operator's rights) and a
      // publish acknowledgement (the insider's own append, with the document's subject as its reply subject).
      await storeCopy(stream, subject('t-1'), subject('t-other'), nc);
      await storeAnswer(insider, stream, subject('t-1'), slot({ kind: 'user', id: 'u-ack' }), Buffer.alloc(32, 3).toString('base64'));
      expect(await tasks.get('t-1')).toEqual(written);
      // Empty answers with a status line of their own (probe): a direct get for a sequence the stream lacks (`404`),
      // read back as "no value" by the client's own get, and a malformed one (`408`), read back as a failed read.
      await storeAnswer(nc, stream, subject('t-1'), `$JS.API.DIRECT.GET.${stream}`, '{"seq":999999999}');
      expect(await tasks.get('t-1')).toEqual(written);
      await storeAnswer(nc, stream, subject('t-1'), `$JS.API.DIRECT.GET.${stream}`, 'garbage');
      expect(await tasks.get('t-1')).toEqual(written);
      expect((await tasks.find({ title: 'call the clinic' })).map((d) => d.id)).toEqual(['t-1']);
      const replaced = await tasks.replace('t-1', { title: 'call the clinic at 9' }, written.revision);
      expect(await tasks.get('t-1')).toEqual(replaced);
      await storeInfo(stream, subject('t-1'));
      expect(await tasks.delete('t-1', replaced.revision)).toBe(true);
      expect(await tasks.get('t-1')).toBeNull();
    });

    it('a key the bus wrote under another encoding of an existing document\'s id does not list that document twice (review)', async () => {
      const tasks = store.collection<{ title: string }>('tasks');
      await tasks.put('t-twice', { title: 'listed once' });
      // `_b64_` + base64url of the id decodes to the same id; no writer makes that key for it (the id is verbatim).
      await storeInfo(stream, `$KV.${bucket}._b64_${Buffer.from('t-twice').toString('base64url')}`);
      expect((await tasks.find({ title: 'listed once' })).map((d) => d.id)).toEqual(['t-twice']);
    });

    it('a key only the bus wrote holds no document: it is not found, and a create takes it', async () => {
      const tasks = store.collection<{ title: string }>('tasks');
      await storeInfo(stream, subject('t-new'));
      expect(await tasks.get('t-new')).toBeNull();
      expect((await tasks.find()).map((d) => d.id)).not.toContain('t-new');
      const { created, doc } = await tasks.create('t-new', { title: 'new' });
      expect(created).toBe(true);
      expect(await tasks.get('t-new')).toEqual(doc);
    });

    it('a copy of a message that rolls its subject up (an object\'s metadata) is refused: it cannot delete a document\'s revisions', async () => {
      const tasks = store.collection<{ title: string }>('tasks');
      const written = await tasks.put('t-roll', { title: 'kept' });
      const objects = await new Objm(nc).create('rl_probe_objects');
      await objects.putBlob({ name: 'probe' }, new Uint8Array([1, 2, 3]));
      const meta = (await jsm.streams.info('OBJ_rl_probe_objects', { subjects_filter: '$O.rl_probe_objects.M.>' })).state.subjects;
      const metaSubject = Object.keys(meta ?? {})[0];
      // What the server would store from a direct get of it answered to the document's subject: refused.
      const copy = await jsm.direct.getMessage('OBJ_rl_probe_objects', { last_by_subj: metaSubject });
      expect(copy?.header.get('Nats-Rollup')).toBe('sub');
      const h = natsHeaders();
      for (const [k, v] of copy!.header) for (const value of v) h.append(k, value);
      await expect(jetstream(nc).publish(subject('t-roll'), copy!.data, { headers: h })).rejects.toThrow(/rollup/i);
      expect(await tasks.get('t-roll')).toEqual(written);
    });

    it('a collection an earlier release wrote (one revision per key, unmarked values) still reads, and the bus\'s value stored on it after the bootstrap does not replace it', async () => {
      const old = 'rl_doc_earlier';
      const kv = await new Kvm(nc).create(old, { history: 1 });
      await kv.put('row-1', JSON.stringify({ run: 'r-1', status: 'done' }));
      await ensureKvBucket(jsm, old, { history: KV_HISTORY });
      expect((await jsm.streams.info(`KV_${old}`)).config).toMatchObject({ max_msgs_per_subject: KV_HISTORY, allow_rollup_hdrs: false });
      await storeInfo(`KV_${old}`, `$KV.${old}.row-1`);
      const rows = store.collection<{ run: string; status: string }>('earlier');
      const row = await rows.get('row-1');
      expect(row?.value).toEqual({ run: 'r-1', status: 'done' });
      const next = await rows.replace('row-1', { run: 'r-1', status: 'archived' }, row!.revision);
      expect((await rows.get('row-1'))?.revision).toBe(next.revision);
    });
  });
});
