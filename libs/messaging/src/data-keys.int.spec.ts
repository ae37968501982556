import { connect, NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { startNatsServer, NatsServerHandle } from '@runledger/testing';
import { DATA_KEYS_BUCKET, dataKeyName, ERASED_VALUE, KvDataKeyStore, openFor, sealFor } from './data-keys';

jest.setTimeout(60_000);

describe('Issue 9 erasure: per-user and per-case data keys in NATS KV', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let keys: KvDataKeyStore;
  const alice = { kind: 'user' as const, id: 'u-alice' };
  const caseA = { kind: 'case' as const, id: 'case-a' };

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect(server.connectOptions());
    keys = new KvDataKeyStore(nc);
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  it('Issue 9 erasure: sealed data opens with its owner key and carries no plaintext', async () => {
    const sealed = await sealFor(keys, alice, { title: 'call my doctor about the biopsy' });
    expect(JSON.stringify(sealed)).not.toContain('biopsy');
    expect(await openFor(keys, alice, sealed)).toEqual({ title: 'call my doctor about the biopsy' });
    // Bound to its owner: the same ciphertext relabelled for another owner does not open.
    await sealFor(keys, caseA, 'case data');
    await expect(openFor(keys, caseA, { ...sealed, owner: dataKeyName(caseA) })).rejects.toThrow();
  });

  it('Issue 9 erasure: destroying the key makes every value sealed with it unreadable, removes the key material, and refuses new data', async () => {
    const bob = { kind: 'user' as const, id: 'u-bob' };
    const sealed = await sealFor(keys, bob, 'bob task');
    const other = await sealFor(keys, caseA, 'still readable');
    await keys.destroy(bob);
    expect(await openFor(keys, bob, sealed)).toEqual(ERASED_VALUE);
    expect(await openFor(keys, caseA, other)).toBe('still readable');
    await expect(sealFor(keys, bob, 'after erasure')).rejects.toThrow(/destroyed/);
    // The bucket's stream keeps one message for Bob: the tombstone, not the key.
    const jsm = await jetstreamManager(nc);
    const last = await jsm.streams.getMessage(`KV_${DATA_KEYS_BUCKET}`, { last_by_subj: `$KV.${DATA_KEYS_BUCKET}.${dataKeyName(bob)}` });
    expect(new TextDecoder().decode(last!.data)).toBe('erased');
    const info = await jsm.streams.info(`KV_${DATA_KEYS_BUCKET}`, { subjects_filter: `$KV.${DATA_KEYS_BUCKET}.${dataKeyName(bob)}` });
    expect(info.state.subjects?.[`$KV.${DATA_KEYS_BUCKET}.${dataKeyName(bob)}`]).toBe(1);
  });
});
