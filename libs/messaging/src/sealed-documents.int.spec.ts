import { Kvm } from '@nats-io/kv';
import { DocumentInvalidError, NatsKvDocumentStore } from '@runledger/document-store';
import { useNatsServer } from '@runledger/testing';
import { KvDataKeyStore, provisionDataKeys } from './data-keys';
import { SealedDocumentStore, SEALED_ROW_FIELD } from './sealed-documents';

jest.setTimeout(60_000);

describe('Issue 23 erasure: personal rows are sealed at rest with their owner\'s data key', () => {
  const nats = useNatsServer();
  let keys: KvDataKeyStore;
  let store: SealedDocumentStore;

  beforeAll(async () => {
    await provisionDataKeys(nats.nc);
    keys = new KvDataKeyStore(nats.nc);
    store = new SealedDocumentStore(new NatsKvDocumentStore(nats.nc), keys);
  });

  const rawRow = async (collection: string, id: string) => (await (await new Kvm(nats.nc).open(`rl_doc_${collection}`)).get(id))!.string();

  it('Issue 23 erasure: a task row is stored as ciphertext but reads, filters and updates as a plain document', async () => {
    const tasks = store.collection<Record<string, unknown>>('tasks');
    const row = { task_id: 't1', owner_id: 'u-alice', description: 'call the clinic at 415 555 0199', status: 'pending', created_at: '2026-11-26T00:00:00.000Z' };
    const { doc } = await tasks.create('t1', row);
    expect(doc.value).toEqual(row);
    const stored = JSON.parse(await rawRow('tasks', 't1')) as Record<string, unknown>;
    expect(JSON.stringify(stored)).not.toContain('555');
    expect(Object.keys(stored).sort()).toEqual(['created_at', 'owner_id', SEALED_ROW_FIELD, 'status', 'task_id'].sort());
    expect((await tasks.get('t1'))!.value).toEqual(row);
    await tasks.create('t2', { task_id: 't2', owner_id: 'u-alice', description: 'water the ficus', status: 'pending' });
    // A filter on a sealed field is applied to the opened rows; one on a plain field is the store's.
    expect((await tasks.find({ owner_id: 'u-alice', description: 'water the ficus' })).map((d) => d.id)).toEqual(['t2']);
    expect((await tasks.find({ status: 'pending' }, { limit: 1 })).map((d) => d.id)).toEqual(['t1']);
    const updated = await tasks.replace('t1', { ...row, description: 'call the clinic back' }, doc.revision);
    expect(updated.value.description).toBe('call the clinic back');
    expect(await rawRow('tasks', 't1')).not.toContain('clinic');
    await expect(tasks.find({}, { sort: { field: 'description', direction: 1 } })).rejects.toMatchObject({ code: 'STORE.INVALID' });
  });

  it('Bad input gets a specific error: a filter the store would refuse is refused on a sealed collection too (DocumentInvalidError), never matched in memory', async () => {
    const tasks = store.collection<Record<string, unknown>>('tasks');
    await tasks.create('t-bad', { task_id: 't-bad', owner_id: 'u-bob', 'a.b': 1, description: 'x' });
    for (const filter of [{ 'a.b': 1 }, { $where: 'true' }, { description: { $ne: 'y' } }]) {
      await expect(tasks.find({ owner_id: 'u-bob', ...filter })).rejects.toBeInstanceOf(DocumentInvalidError);
    }
    await expect(tasks.find({}, { sort: { field: 'description', direction: 1 } })).rejects.toBeInstanceOf(DocumentInvalidError);
  });

  it('Issue 22 a row written here is answered from what was sealed (no decryption), as a read of the stored row gives it; a create that finds another row answers that one', async () => {
    const tasks = store.collection<Record<string, unknown>>('tasks');
    const row = { description: 'buy stamps', task_id: 't-w', status: 'pending', owner_id: 'u-w', notes: { n: [1, 'two', null] } };
    const { created, doc } = await tasks.create('t-w', row);
    expect(created).toBe(true);
    const read = (await tasks.get('t-w'))!.value;
    expect(JSON.stringify(doc.value)).toBe(JSON.stringify(read)); // same fields, same order (plain ones first)
    const put = await tasks.put('t-w', { ...read, description: 'buy more stamps' });
    expect(JSON.stringify(put.value)).toBe(JSON.stringify((await tasks.get('t-w'))!.value));
    const again = await tasks.create('t-w', { ...row, description: 'another request' });
    expect(again).toMatchObject({ created: false, doc: { value: { description: 'buy more stamps' } } });
  });

  it('Issue 23 erasure: once the owner\'s key is destroyed a row reads as its plain fields and the erased marker, and no row is written for the owner', async () => {
    const facts = store.collection<Record<string, unknown>>('facts');
    await facts.put('f1', { document_id: 'f1', case_id: 'case-z', text: 'Dana Reyes worked overtime' });
    await keys.destroy({ kind: 'case', id: 'case-z' });
    expect((await facts.get('f1'))!.value).toEqual({ document_id: 'f1', case_id: 'case-z', erased: true });
    await expect(facts.put('f2', { document_id: 'f2', case_id: 'case-z', text: 'more' })).rejects.toMatchObject({ code: 'DATA.ERASED' });
  });

  it('Issue 23 erasure: a row stored before sealing (plain) reads as it is, and is sealed when it is written again', async () => {
    const legacy = { task_id: 't-old', owner_id: 'u-old', description: 'an old plain row', status: 'pending' };
    await new NatsKvDocumentStore(nats.nc).collection<Record<string, unknown>>('tasks').put('t-old', legacy);
    const tasks = store.collection<Record<string, unknown>>('tasks');
    const read = (await tasks.get('t-old'))!;
    expect(read.value).toEqual(legacy);
    await tasks.replace('t-old', { ...read.value, status: 'done' }, read.revision);
    expect(await rawRow('tasks', 't-old')).not.toContain('an old plain row');
    expect((await tasks.get('t-old'))!.value).toEqual({ ...legacy, status: 'done' });
  });

  it('Issue 23 erasure: collections that are not personal rows (the shared plane, read models) are stored as they are', async () => {
    const shared = store.collection<Record<string, unknown>>('shared_playbooks');
    await shared.put('p1', { document_id: 'p1', case_id: 'case-y', text: 'a sanitised playbook' });
    expect(await rawRow('shared_playbooks', 'p1')).toContain('a sanitised playbook');
  });
});
