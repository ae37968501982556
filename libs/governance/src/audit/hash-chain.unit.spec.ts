import { canonicalJson, chainEntry, GENESIS_PREV_HASH, sha256Hex, verifyChain, type ChainEntry, type ChainEvent } from '../index';

const events: ChainEvent[] = [
  { event_id: 'e1', type: 'RunCreated', run_id: 'r1', data: { run_kind: 'db_write' }, recorded_at: '2026-11-22T10:00:00Z' },
  { event_id: 'e2', type: 'AuthzDecided', run_id: 'r1', data: { decision: 'allow' }, recorded_at: '2026-11-22T10:00:01Z' },
  { event_id: 'e3', type: 'RunStarted', run_id: 'r1', data: {}, recorded_at: '2026-11-22T10:00:02Z' },
  { event_id: 'e4', type: 'DbWriteAudited', run_id: 'r1', data: { action: 'append:transcripts' }, recorded_at: '2026-11-22T10:00:03Z' },
  { event_id: 'e5', type: 'RunCompleted', run_id: 'r1', data: {}, recorded_at: '2026-11-22T10:00:04Z' },
];

function chain(list: readonly ChainEvent[] = events): ChainEntry[] {
  const out: ChainEntry[] = [];
  list.forEach((event, i) => out.push(chainEntry(out[i - 1] ?? null, event, i + 1)));
  return out;
}
const clone = (entries: ChainEntry[]): ChainEntry[] => JSON.parse(JSON.stringify(entries)) as ChainEntry[];

describe('audit_ledger hash chain (§6 audit records, tamper evidence)', () => {
  test('§6 audit chain: the genesis entry links to 64 zeros and each entry hashes {seq, event_id, prev_hash, body}', () => {
    const entries = chain();
    expect(entries[0]).toMatchObject({ seq: 1, event_id: 'e1', prev_hash: GENESIS_PREV_HASH });
    expect(GENESIS_PREV_HASH).toBe('0'.repeat(64));
    expect(entries[1].prev_hash).toBe(entries[0].entry_hash);
    const { seq, event_id, prev_hash, body } = entries[2];
    expect(entries[2].entry_hash).toBe(sha256Hex(canonicalJson({ seq, event_id, prev_hash, body })));
  });

  test('§6 audit chain: an untouched chain verifies, also after a JSON round trip through storage', () => {
    expect(verifyChain(chain())).toEqual({ ok: true, length: 5 });
    expect(verifyChain(clone(chain()))).toEqual({ ok: true, length: 5 });
    expect(verifyChain([])).toEqual({ ok: true, length: 0 });
  });

  test('§6 audit chain: editing an entry body is caught at that entry', () => {
    const entries = clone(chain());
    (entries[2].body.data as Record<string, unknown>).forged = true;
    expect(verifyChain(entries)).toEqual({ ok: false, first_broken_seq: 3, reason: 'hash_mismatch' });
  });

  test('§6 audit chain: editing a timestamp is tampering too (time is not excluded from the chain)', () => {
    const entries = clone(chain());
    entries[3].body.recorded_at = '2026-11-21T10:00:03Z';
    expect(verifyChain(entries)).toEqual({ ok: false, first_broken_seq: 4, reason: 'hash_mismatch' });
  });

  test('§6 audit chain: an edit with a recomputed hash breaks the link to the next entry', () => {
    const entries = clone(chain());
    const forged = chainEntry(entries[0], { ...events[1], data: { decision: 'deny' } }, 2);
    entries[1] = forged;
    expect(verifyChain(entries)).toEqual({ ok: false, first_broken_seq: 3, reason: 'prev_link_mismatch' });
  });

  test('§6 audit chain: deleting an entry is caught where the sequence jumps', () => {
    const entries = chain();
    entries.splice(2, 1);
    expect(verifyChain(entries)).toEqual({ ok: false, first_broken_seq: 3, reason: 'sequence_gap' });
  });

  test('§6 audit chain: deleting an entry and renumbering the rest is caught by the links', () => {
    const entries = clone(chain());
    entries.splice(2, 1);
    entries.forEach((e, i) => (e.seq = i + 1));
    // Renumbered entries no longer match their own hash; the first one shows it.
    expect(verifyChain(entries)).toEqual({ ok: false, first_broken_seq: 3, reason: 'hash_mismatch' });
  });

  test('§6 audit chain: swapping two entries is reported as reordered at the first of them', () => {
    const entries = chain();
    [entries[1], entries[2]] = [entries[2], entries[1]];
    expect(verifyChain(entries)).toEqual({ ok: false, first_broken_seq: 2, reason: 'reordered' });
  });

  test('§6 audit chain: a replayed copy of an entry is reported as a duplicate', () => {
    const entries = chain();
    entries.splice(3, 0, entries[2]);
    expect(verifyChain(entries)).toEqual({ ok: false, first_broken_seq: 4, reason: 'duplicate' });
  });

  test('§6 audit chain: the same event chained twice under fresh numbers is a duplicate, though its links hold', () => {
    const entries = chain([...events.slice(0, 3), events[2], ...events.slice(3)]);
    expect(verifyChain(entries)).toEqual({ ok: false, first_broken_seq: 4, reason: 'duplicate' });
  });

  test('§6 audit chain: the writer refuses to leave a hole', () => {
    const entries = chain();
    expect(() => chainEntry(entries[4], { event_id: 'e6', type: 'X', run_id: 'r1' }, 7)).toThrow('chain seq must be 6, got 7');
    expect(() => chainEntry(null, events[0], 2)).toThrow('chain seq must be 1, got 2');
  });
});
