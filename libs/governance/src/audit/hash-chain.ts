import { canonicalJson } from '../hashing/canonical-json';
import { sha256Hex } from '../hashing/hashes';
import type { ChainCheckpoint } from './anchored-chain';

/** `prev_hash` of the first entry. */
export const GENESIS_PREV_HASH = '0'.repeat(64);
/** The first entry's `seq`; sequences then rise by exactly one. */
export const GENESIS_SEQ = 1;

/** An audit event as chained: the whole event is the body, timestamps included (tampering with time counts). */
export interface ChainEvent {
  event_id: string;
  type: string;
  run_id: string;
  [field: string]: unknown;
}

export interface ChainEntry {
  seq: number;
  event_id: string;
  prev_hash: string;
  /** sha256 of canonicalJson({ seq, event_id, prev_hash, body }). */
  entry_hash: string;
  body: ChainEvent;
  /** A signed checkpoint of the chain at this entry (see anchored-chain.ts); not part of entry_hash. */
  checkpoint?: ChainCheckpoint;
}

/** The log event types of the chain subject: one entry per message (chains written before batching) or a batch. */
export const CHAIN_ENTRY_EVENT = 'AuditChainEntry';
export const CHAIN_BATCH_EVENT = 'AuditChainBatch';

/** One chain message: consecutive entries, the last of which carries the signed checkpoint that anchors them all. */
export interface ChainBatch {
  entries: ChainEntry[];
}

/**
 * The chain's entries in order from the messages of its log subject. A message of any other shape is read as one
 * entry, so whatever was appended there (a forgery included) is verified, never skipped.
 */
export function chainEntriesOf(messages: ReadonlyArray<{ type: string; data: unknown }>): ChainEntry[] {
  const out: ChainEntry[] = [];
  for (const m of messages) {
    const batch = m.type === CHAIN_BATCH_EVENT ? (m.data as Partial<ChainBatch> | null)?.entries : undefined;
    if (Array.isArray(batch)) out.push(...batch);
    else out.push(m.data as ChainEntry);
  }
  return out;
}

export type ChainBreak = 'hash_mismatch' | 'prev_link_mismatch' | 'sequence_gap' | 'reordered' | 'duplicate';

/**
 * `first_broken_seq` is the first sequence number that does not verify: entries GENESIS_SEQ up to
 * first_broken_seq − 1 are intact and correctly linked. Note that an edited entry whose hash was
 * recomputed verifies on its own; the break then shows at the next entry (prev_link_mismatch).
 */
export type ChainVerification = { ok: true; length: number } | { ok: false; first_broken_seq: number; reason: ChainBreak };

/** The hash an entry must carry. */
export function computeEntryHash(entry: Pick<ChainEntry, 'seq' | 'event_id' | 'prev_hash' | 'body'>): string {
  return sha256Hex(canonicalJson({ seq: entry.seq, event_id: entry.event_id, prev_hash: entry.prev_hash, body: entry.body }));
}

/**
 * Appends one event to the chain. `prev` is the current last entry (null for the first one), `seq`
 * the next sequence number. Throws on a caller bug (wrong seq, event without id): a chain with a hole
 * must never be written.
 */
export function chainEntry(prev: ChainEntry | null, event: ChainEvent, seq: number): ChainEntry {
  const expected = prev ? prev.seq + 1 : GENESIS_SEQ;
  if (seq !== expected) throw new RangeError(`chain seq must be ${expected}, got ${seq}`);
  if (typeof event.event_id !== 'string' || event.event_id === '') throw new TypeError('chained event needs an event_id');
  const prev_hash = prev ? prev.entry_hash : GENESIS_PREV_HASH;
  const unhashed = { seq, event_id: event.event_id, prev_hash, body: event };
  return { ...unhashed, entry_hash: computeEntryHash(unhashed) };
}

/** Verifies a whole chain from its genesis entry, reporting the first break. */
export function verifyChain(entries: readonly ChainEntry[]): ChainVerification {
  const seenEventIds = new Set<string>();
  let expectedSeq = GENESIS_SEQ;
  let expectedPrev = GENESIS_PREV_HASH;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    const broken = (reason: ChainBreak): ChainVerification => ({ ok: false, first_broken_seq: expectedSeq, reason });
    if (entry === null || typeof entry !== 'object') return broken('hash_mismatch'); // not an entry at all
    if (entry.seq !== expectedSeq) {
      if (seenEventIds.has(entry.event_id)) return broken('duplicate');
      const laterHasExpected = entries.slice(i + 1).some((e) => e.seq === expectedSeq);
      return broken(entry.seq < expectedSeq || laterHasExpected ? 'reordered' : 'sequence_gap');
    }
    // The same event chained twice under consecutive numbers links correctly; only its id gives it away.
    if (seenEventIds.has(entry.event_id)) return broken('duplicate');
    if (!hashMatches(entry)) return broken('hash_mismatch');
    if (entry.prev_hash !== expectedPrev) return broken('prev_link_mismatch');
    seenEventIds.add(entry.event_id);
    expectedSeq += 1;
    expectedPrev = entry.entry_hash;
  }
  return { ok: true, length: entries.length };
}

function hashMatches(entry: ChainEntry): boolean {
  try {
    return computeEntryHash(entry) === entry.entry_hash;
  } catch {
    return false; // a stored body that is not JSON data cannot match any hash
  }
}
