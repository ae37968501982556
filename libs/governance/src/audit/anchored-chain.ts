import type { AuditCheckpoint } from '@runledger/contracts';
import { canonicalJson } from '../hashing/canonical-json';
import { sha256Hex } from '../hashing/hashes';
import { ChainBreak, ChainEntry, verifyChain } from './hash-chain';

/**
 * A signed statement "the chain had `count` entries and its head at `seq` hashed `entry_hash`". The entry hash
 * commits to every entry before it (prev_hash links), so one valid checkpoint anchors the whole prefix: a later
 * batch-based chain (one signed entry per batch) needs no other rule. The signing key lives outside the log, so
 * whoever can append to the log can neither re-sign a rehashed chain nor sign a forged tail. Its type is the contract's
 * AuditCheckpoint (generated from proto-contracts): `key_id` the signing key's fingerprint, `signature` Ed25519 (base64)
 * over checkpointMessage.
 */
export type ChainCheckpoint = AuditCheckpoint;

/** Signs checkpoint messages; the private key stays in the adapter (never in the log). */
export interface ChainSigner {
  readonly keyId: string;
  sign(message: string): string;
}

/** True when `signature` is a valid signature of `message` by a trusted key named `keyId`. */
export type SignatureCheck = (keyId: string, message: string, signature: string) => boolean;

/** The exact bytes that are signed: versioned, so a signature can never be replayed as another kind of statement. */
export function checkpointMessage(c: Pick<ChainCheckpoint, 'seq' | 'entry_hash' | 'count' | 'key_id'>): string {
  return canonicalJson({ statement: 'runledger.audit.checkpoint.v1', seq: c.seq, entry_hash: c.entry_hash, count: c.count, key_id: c.key_id });
}

/** A checkpoint of the chain whose last entry is `head`. */
export function signCheckpoint(head: Pick<ChainEntry, 'seq' | 'entry_hash'>, signer: ChainSigner): ChainCheckpoint {
  const unsigned = { seq: head.seq, entry_hash: head.entry_hash, count: head.seq, key_id: signer.keyId };
  return { ...unsigned, signature: signer.sign(checkpointMessage(unsigned)) };
}

/** True when the checkpoint is signed by a trusted key (whatever entry it names). */
export function checkpointSigned(c: ChainCheckpoint | undefined | null, check: SignatureCheck): boolean {
  if (!c || typeof c !== 'object' || typeof c.signature !== 'string' || typeof c.key_id !== 'string') return false;
  try {
    return check(c.key_id, checkpointMessage(c), c.signature);
  } catch {
    return false;
  }
}

/** Breaks only an anchored verification can find; the link breaks are {@link ChainBreak}. */
export type AnchorBreak = 'signature_invalid' | 'unanchored_tail' | 'truncated' | 'missing_event' | 'event_mismatch' | 'damaged_message' | 'log_replaced' | 'forged_run';

export type AnchoredVerification =
  | { ok: true; length: number; head_hash: string | null; checkpoint: ChainCheckpoint | null }
  /** `log_seq`: the log message a `damaged_message` or `forged_run` verdict names (first_broken_seq is then the first chain entry not read). */
  | { ok: false; first_broken_seq: number; reason: ChainBreak | AnchorBreak; detail?: string; log_seq?: number };

/**
 * Which log a signed head was taken of: the stream, when it was created and its first message. None of these can be
 * kept by an admin who deletes the log and creates it again (with all, part or none of its messages), nor by one who
 * drops its oldest messages (lowering its limits moves the first sequence).
 */
export interface LogIdentity {
  stream: string;
  created: string;
  first_seq: number;
}

/** A signed head as kept outside the log (the ledger's anchor file, an operator's witness copy), with the log it is of. */
export interface LogAnchor {
  log: LogIdentity;
  checkpoint: ChainCheckpoint;
}

/** `log_replaced` when the anchor was taken of another log than `current` (deleted and recreated, or cut from its start); null when it is this log. */
export function checkLogIdentity(anchor: LogAnchor | null | undefined, current: LogIdentity): AnchoredVerification | null {
  if (!anchor) return null;
  const a = anchor.log;
  if (a.stream === current.stream && a.created === current.created && a.first_seq === current.first_seq) return null;
  return {
    ok: false, first_broken_seq: 1, reason: 'log_replaced',
    detail: `the signed head (entry ${anchor.checkpoint.seq}) is of ${a.stream} created ${a.created} starting at message ${a.first_seq}; this log is ${current.stream} created ${current.created} starting at message ${current.first_seq}`,
  };
}

export interface AnchorOptions {
  check: SignatureCheck;
  /** A signed head kept outside the chain (the ledger's anchor file, an export manifest): the chain may not end before it. */
  anchor?: ChainCheckpoint | null;
}

/**
 * Verifies links (as {@link verifyChain}), every checkpoint an entry carries, that the last entry is anchored by a
 * valid checkpoint (an appended forgery is an unanchored tail), and that the chain reaches the outside anchor (a cut
 * tail). Reports the first broken entry; for a bad checkpoint that is the first entry after the last valid one (the
 * ledger signs one checkpoint per batch, so the bad signature leaves its whole batch unproven). An empty chain with no anchor verifies (nothing chained yet).
 */
export function verifyAnchoredChain(entries: readonly ChainEntry[], opts: AnchorOptions): AnchoredVerification {
  const links = verifyChain(entries);
  const brokenAt = links.ok ? Infinity : links.first_broken_seq;
  let lastAnchored = 0;
  let latest: ChainCheckpoint | null = null;
  for (const entry of entries.slice(0, Math.min(entries.length, brokenAt - 1))) {
    const c = entry.checkpoint;
    if (c === undefined) continue;
    if (!checkpointSigned(c, opts.check) || c.seq !== entry.seq || c.count !== entry.seq || c.entry_hash !== entry.entry_hash) {
      // The checkpoint vouches for every entry since the previous valid one; the first of those is where proof ends.
      const from = lastAnchored + 1;
      const span = from === entry.seq ? `entry ${entry.seq}` : `entries ${from}–${entry.seq}`;
      return { ok: false, first_broken_seq: from, reason: 'signature_invalid', detail: `the checkpoint at entry ${entry.seq} is not a valid signature of it by a trusted key, so ${span} are unproven` };
    }
    lastAnchored = entry.seq;
    latest = c;
  }
  if (!links.ok) return links;
  const anchor = opts.anchor;
  if (anchor) {
    if (!checkpointSigned(anchor, opts.check)) return { ok: false, first_broken_seq: anchor.seq, reason: 'signature_invalid', detail: 'the outside anchor is not signed by a trusted key' };
    const at = entries[anchor.seq - 1];
    if (!at) return { ok: false, first_broken_seq: entries.length + 1, reason: 'truncated', detail: `a signed head names entry ${anchor.seq}; the chain ends at ${entries.length}` };
    if (at.entry_hash !== anchor.entry_hash) return { ok: false, first_broken_seq: anchor.seq, reason: 'signature_invalid', detail: 'the entry differs from the one the signed head names' };
  }
  if (entries.length > lastAnchored) {
    return { ok: false, first_broken_seq: lastAnchored + 1, reason: 'unanchored_tail', detail: `entries ${lastAnchored + 1}–${entries.length} are covered by no signed checkpoint` };
  }
  return { ok: true, length: entries.length, head_hash: entries[entries.length - 1]?.entry_hash ?? null, checkpoint: latest };
}

/** A chained log event as completeness needs it. */
export interface LoggedAuditEvent {
  event_id: string;
  log_seq: number;
  /** Its index in its commit (log format 2); absent for a commit's first event. */
  log_index?: number;
  data_sha256: string;
}

/** The digest the chain records of an event's data (canonical JSON, so storage round trips keep it). */
export function dataDigest(data: unknown): string {
  return sha256Hex(canonicalJson(data ?? null));
}

/**
 * Completeness: every audit-relevant event of the log (up to the point the ledger has processed) is in the
 * chain, with the same data. An event the ledger dropped (dead-lettered, skipped) is a `missing_event`.
 */
export function checkCompleteness(entries: readonly ChainEntry[], logged: readonly LoggedAuditEvent[]): AnchoredVerification | null {
  const byId = new Map(entries.map((e) => [e.event_id, e]));
  for (const event of logged) {
    const entry = byId.get(event.event_id);
    if (!entry) {
      // Entries of events before it in log order (seq, then index in the commit).
      const before = entries.filter((e) => {
        const seq = Number(e.body.log_seq);
        return seq < event.log_seq || (seq === event.log_seq && Number(e.body.log_index ?? 0) < (event.log_index ?? 0));
      }).length;
      return { ok: false, first_broken_seq: before + 1, reason: 'missing_event', detail: `log event ${event.event_id} (stream seq ${event.log_seq}) is not in the chain` };
    }
    if (bodyDigest(entry) !== event.data_sha256) {
      // Where each side holds it: the same log message (its data changed in the store, or replicas disagree) or two
      // messages holding one event id (a commit stored twice), which are different faults to look for.
      const held = logged.filter((l) => l.event_id === event.event_id).map(logPosition);
      const detail = `the chain's digest of event ${event.event_id} differs from the log's (chain entry ${entry.seq} records log message ${logPosition({ log_seq: Number(entry.body.log_seq), log_index: Number(entry.body.log_index ?? 0) })}; the log holds the event at ${held.join(', ')})`;
      return { ok: false, first_broken_seq: entry.seq, reason: 'event_mismatch', detail };
    }
  }
  return null;
}

/** A log event's position as a report names it: its message's sequence, and its index in the commit when not the first. */
function logPosition(p: Pick<LoggedAuditEvent, 'log_seq' | 'log_index'>): string {
  return p.log_index ? `${p.log_seq}.${p.log_index}` : String(p.log_seq);
}

/** Entries chained before digests were introduced carry the data itself. */
function bodyDigest(entry: ChainEntry): string {
  const body = entry.body as { data_sha256?: unknown; data?: unknown };
  return typeof body.data_sha256 === 'string' ? body.data_sha256 : dataDigest(body.data);
}
