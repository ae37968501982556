import { createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import {
  CHAIN_BATCH_EVENT, CHAIN_ENTRY_EVENT, chainEntriesOf, chainEntry, checkCompleteness, checkLogIdentity, computeEntryHash, dataDigest, signCheckpoint, verifyAnchoredChain,
  type ChainEntry, type ChainEvent, type ChainSigner, type SignatureCheck,
} from '../index';

function keyPair(keyId: string): { signer: ChainSigner; check: SignatureCheck } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const publicKey = createPublicKey(privateKey);
  return {
    signer: { keyId, sign: (m) => sign(null, Buffer.from(m), privateKey).toString('base64') },
    check: (id, m, s) => id === keyId && verify(null, Buffer.from(m), publicKey, Buffer.from(s, 'base64')),
  };
}
const ledger = keyPair('ledger');
const forger = keyPair('forger');

const events: ChainEvent[] = ['RunCreated', 'AuthzDecided', 'DbWriteAudited', 'RunCompleted', 'DecisionRecorded'].map((type, i) => ({
  event_id: `e${i + 1}`, type, run_id: 'r1', log_seq: 10 + i, data_sha256: dataDigest({ i }),
}));

/** A chain whose every entry carries its signed checkpoint (as each batch of one entry is). */
function signedChain(list: readonly ChainEvent[] = events, signer = ledger.signer): ChainEntry[] {
  const out: ChainEntry[] = [];
  for (const event of list) {
    const entry = chainEntry(out[out.length - 1] ?? null, event, out.length + 1);
    out.push({ ...entry, checkpoint: signCheckpoint(entry, signer) });
  }
  return out;
}
const clone = (entries: ChainEntry[]): ChainEntry[] => JSON.parse(JSON.stringify(entries)) as ChainEntry[];
const opts = { check: ledger.check };

describe('Issue 9 anchored chain: signed checkpoints of the chain head', () => {
  test('Issue 9 anchored chain: a chain whose head is signed by the trusted key verifies, with that checkpoint', () => {
    const entries = signedChain();
    const r = verifyAnchoredChain(clone(entries), opts);
    expect(r).toEqual({ ok: true, length: 5, head_hash: entries[4].entry_hash, checkpoint: entries[4].checkpoint });
    expect(entries[4].checkpoint).toMatchObject({ seq: 5, count: 5, entry_hash: entries[4].entry_hash, key_id: 'ledger' });
  });

  test('Issue 9 anchored chain: one signed head anchors an unsigned prefix (a chain from before checkpoints, or a batch)', () => {
    const entries = signedChain().map((e, i) => (i < 4 ? { ...e, checkpoint: undefined } : e));
    expect(verifyAnchoredChain(entries, opts)).toMatchObject({ ok: true, length: 5 });
  });

  test('Issue 9 tamper edit: an edited entry is caught at that entry', () => {
    const entries = clone(signedChain());
    entries[2].body.data_sha256 = dataDigest({ forged: true });
    expect(verifyAnchoredChain(entries, opts)).toMatchObject({ ok: false, first_broken_seq: 3, reason: 'hash_mismatch' });
  });

  test('Issue 9 tamper rehash: an entry edited and every hash recomputed to the end is caught at the edit (its signature no longer matches)', () => {
    const entries = clone(signedChain());
    entries[1].body.type = 'RunDenied';
    for (let i = 1; i < entries.length; i++) {
      entries[i].prev_hash = entries[i - 1].entry_hash;
      entries[i].entry_hash = computeEntryHash(entries[i]);
    }
    expect(verifyAnchoredChain(entries, opts)).toMatchObject({ ok: false, first_broken_seq: 2, reason: 'signature_invalid' });
  });

  test('Issue 9 anchored chain in batches: a rehash inside a batch leaves that batch unproven from its first entry', () => {
    // Batches [1–2] and [3–5]: only each batch's last entry is signed, as the ledger writes them.
    const entries = clone(signedChain()).map((e, i) => (i === 1 || i === 4 ? e : { ...e, checkpoint: undefined }));
    expect(verifyAnchoredChain(entries, opts)).toMatchObject({ ok: true, length: 5 });
    entries[3].body.type = 'RunDenied';
    for (let i = 3; i < entries.length; i++) {
      entries[i].prev_hash = entries[i - 1].entry_hash;
      entries[i].entry_hash = computeEntryHash(entries[i]);
    }
    expect(verifyAnchoredChain(entries, opts)).toMatchObject({ ok: false, first_broken_seq: 3, reason: 'signature_invalid', detail: expect.stringContaining('entries 3–5 are unproven') });
  });

  test('Issue 12 chain messages: batches and single entries read back as one chain in order; anything else is read as an entry', () => {
    const entries = signedChain();
    const messages = [
      { type: CHAIN_ENTRY_EVENT, data: entries[0] },
      { type: CHAIN_BATCH_EVENT, data: { entries: entries.slice(1, 4) } },
      { type: 'SomethingForged', data: entries[4] },
    ];
    expect(chainEntriesOf(messages)).toEqual(entries);
    expect(verifyAnchoredChain(chainEntriesOf([{ type: CHAIN_BATCH_EVENT, data: null }]), opts)).toMatchObject({ ok: false, first_broken_seq: 1, reason: 'hash_mismatch' });
  });

  test('Issue 9 tamper rehash: rehashing and dropping the checkpoints leaves an unanchored tail from the edit', () => {
    const entries = clone(signedChain());
    entries[1].body.type = 'RunDenied';
    for (let i = 1; i < entries.length; i++) {
      entries[i].prev_hash = entries[i - 1].entry_hash;
      entries[i].entry_hash = computeEntryHash(entries[i]);
      delete entries[i].checkpoint;
    }
    expect(verifyAnchoredChain(entries, opts)).toMatchObject({ ok: false, first_broken_seq: 2, reason: 'unanchored_tail' });
  });

  test('Issue 9 tamper append: a correctly hashed entry appended without the key is an unanchored tail, re-signed by another key it is invalid', () => {
    const entries = clone(signedChain());
    const forged = chainEntry(entries[4], { event_id: 'e-forged', type: 'RunCompleted', run_id: 'r2' }, 6);
    expect(verifyAnchoredChain([...entries, forged], opts)).toMatchObject({ ok: false, first_broken_seq: 6, reason: 'unanchored_tail' });
    const signedByForger = { ...forged, checkpoint: signCheckpoint(forged, forger.signer) };
    expect(verifyAnchoredChain([...entries, signedByForger], opts)).toMatchObject({ ok: false, first_broken_seq: 6, reason: 'signature_invalid' });
    // A whole chain signed by another key is not trusted either.
    expect(verifyAnchoredChain(signedChain(events, forger.signer), opts)).toMatchObject({ ok: false, first_broken_seq: 1, reason: 'signature_invalid' });
  });

  test('Issue 9 tamper truncate: a cut tail verifies alone, and is caught against a signed head kept outside the chain', () => {
    const entries = signedChain();
    const head = entries[4].checkpoint;
    expect(verifyAnchoredChain(entries.slice(0, 3), opts)).toMatchObject({ ok: true, length: 3 });
    expect(verifyAnchoredChain(entries.slice(0, 3), { ...opts, anchor: head })).toMatchObject({ ok: false, first_broken_seq: 4, reason: 'truncated' });
    expect(verifyAnchoredChain([], { ...opts, anchor: head })).toMatchObject({ ok: false, first_broken_seq: 1, reason: 'truncated' });
    expect(verifyAnchoredChain(entries, { ...opts, anchor: head })).toMatchObject({ ok: true, length: 5 });
    // A forged anchor (not signed by the trusted key) is no anchor.
    const forgedHead = signCheckpoint({ seq: 9, entry_hash: 'f'.repeat(64) }, forger.signer);
    expect(verifyAnchoredChain(entries, { ...opts, anchor: forgedHead })).toMatchObject({ ok: false, reason: 'signature_invalid' });
  });

  test('Issue 9 completeness: an audit-relevant log event missing from the chain is reported, as is a digest that differs', () => {
    const entries = signedChain();
    const logged = events.map((e) => ({ event_id: e.event_id, log_seq: Number(e.log_seq), data_sha256: String(e.data_sha256) }));
    expect(checkCompleteness(entries, logged)).toBeNull();
    const dropped = { event_id: 'e-dead-lettered', log_seq: 12.5, data_sha256: dataDigest({}) };
    expect(checkCompleteness(entries, [...logged, dropped])).toMatchObject({ ok: false, first_broken_seq: 4, reason: 'missing_event' });
    const changed = logged.map((e, i) => (i === 1 ? { ...e, data_sha256: dataDigest({ other: 1 }) } : e));
    expect(checkCompleteness(entries, changed)).toMatchObject({ ok: false, first_broken_seq: 2, reason: 'event_mismatch' });
  });

  test('Issue 9 completeness: an event_mismatch says where the chain recorded the event and where the log holds it (an edited message and one event id stored twice are told apart)', () => {
    const entries = signedChain();
    const logged = events.map((e) => ({ event_id: e.event_id, log_seq: Number(e.log_seq), data_sha256: String(e.data_sha256) }));
    const edited = logged.map((e, i) => (i === 1 ? { ...e, data_sha256: dataDigest({ other: 1 }) } : e));
    expect(checkCompleteness(entries, edited)).toMatchObject({ reason: 'event_mismatch', detail: `the chain's digest of event ${logged[1].event_id} differs from the log's (chain entry 2 records log message ${logged[1].log_seq}; the log holds the event at ${logged[1].log_seq})` });
    // The same event id in a later message with other data (a commit stored again): both positions are named.
    const again = { ...logged[1], log_seq: 99, log_index: 1, data_sha256: dataDigest({ other: 1 }) };
    expect(checkCompleteness(entries, [again, ...logged])).toMatchObject({ reason: 'event_mismatch', detail: `the chain's digest of event ${logged[1].event_id} differs from the log's (chain entry 2 records log message ${logged[1].log_seq}; the log holds the event at 99.1, ${logged[1].log_seq})` });
  });
});

describe('Issue 23 checkLogIdentity: a signed head names the log it was taken of', () => {
  const log = { stream: 'RUNLEDGER_LOG', created: '2026-11-26T10:00:00.000000001Z', first_seq: 1 };
  const anchor = { log, checkpoint: { seq: 60, entry_hash: 'h', count: 60, key_id: 'k', signature: 's' } };
  it('the same log (stream, creation time, first message) passes; no anchor yet passes', () => {
    expect(checkLogIdentity(anchor, { ...log })).toBeNull();
    expect(checkLogIdentity(null, log)).toBeNull();
  });
  it.each([
    ['deleted and created again (another creation time)', { ...log, created: '2026-11-26T11:00:00Z' }],
    ['cut from its start (another first message)', { ...log, first_seq: 41 }],
  ])('a log %s is log_replaced, naming both logs', (_what, current) => {
    const verdict = checkLogIdentity(anchor, current);
    expect(verdict).toMatchObject({ ok: false, reason: 'log_replaced', first_broken_seq: 1 });
    expect(verdict && !verdict.ok && verdict.detail).toContain(current.created);
  });
});
