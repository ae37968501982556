import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { startNatsServer, type NatsServerHandle } from '@runledger/testing';
import { createDocumentStore } from './create-document-store';
import { describeDocumentStoreContract } from './document-store.contract';
import { NatsKvDocumentStore } from './nats-kv-document-store';

jest.setTimeout(30_000);

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

describeDocumentStoreContract('nats-kv', async () => new NatsKvDocumentStore(nc));

describe('NatsKvDocumentStore specifics', () => {
  it('is what createDocumentStore returns without mongoUrl, and leaves the connection open on close()', async () => {
    const store = createDocumentStore({ natsConnection: nc });
    expect(store).toBeInstanceOf(NatsKvDocumentStore);
    expect(store.kind).toBe('nats-kv');
    await store.collection('defaults').put('a', { ok: true });
    await store.close();
    expect(nc.isClosed()).toBe(false);
    expect((await new NatsKvDocumentStore(nc).collection('defaults').get('a'))?.value).toEqual({ ok: true });
  });

  it('keeps one rl_doc_<name> bucket per collection with readable keys where possible', async () => {
    const store = new NatsKvDocumentStore(nc);
    const col = store.collection<{ n: number }>('layout');
    await col.put('run-1.step/2', { n: 1 });
    await col.put('with space', { n: 2 });

    const kv = await new Kvm(nc).open('rl_doc_layout');
    const keys: string[] = [];
    for await (const k of await kv.keys()) keys.push(k);
    expect(keys.sort()).toEqual(['_b64_' + Buffer.from('with space').toString('base64url'), 'run-1.step/2']);
    expect((await kv.get('run-1.step/2'))?.json()).toEqual({ n: 1 });
  });

  it('documents survive a nats-server restart (file-backed JetStream)', async () => {
    const before = await new NatsKvDocumentStore(nc).collection<{ v: string }>('durable').put('d1', { v: 'kept' });
    await nc.close();
    await server.restart();
    nc = await connect(server.connectOptions());
    const after = await new NatsKvDocumentStore(nc).collection<{ v: string }>('durable').get('d1');
    expect(after).toEqual(before);
  });
});
