import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager, JetStreamApiCodes, JetStreamApiError, type JetStreamClient, type JetStreamManager, type PubAck, type StoredMsg } from '@nats-io/jetstream';
import { Empty, type NatsConnection } from '@nats-io/transport-node';
import { deterministicUuid } from '@runledger/kernel';
import { KV_OPERATION_HEADER, keyOfSubject, latestWriterRevision, writerDocument, kvWriterHeaders } from './kv-writer';

/** How many times a write goes past answers the bus keeps storing on its key before it reports a conflict. */
const PAST_FOREIGN_TRIES = 3;
/** Stored with each compare-and-set write: which call wrote it, so a duplicate ack can tell our message from another's. */
const KV_WRITE_ID_HEADER = 'Rl-Write-Id';

/** Where a KV key's revisions are stored: its bucket's stream and its subject (`$KV.<bucket>.<key>`). */
export interface KvKeyAt {
  stream: string;
  subject: string;
}

/**
 * The msgID of a compare-and-set write on a key's revision: one per (key subject, revision), so writers that
 * expect the same revision collide in the server's duplicate check (the stream's duplicate window: 2 min, the
 * server's default, as Kvm.create sets none). Revisions are stream sequences, never reused.
 */
function revisionSlotId(subject: string, expectedRevision: number): string {
  return deterministicUuid('kv-cas', subject, expectedRevision);
}

/** The server's refusal of a publish whose expected last sequence is not the subject's: another write came first. */
export function isWrongLastSequence(err: unknown): boolean {
  if (err instanceof JetStreamApiError) {
    return err.code === JetStreamApiCodes.StreamWrongLastSequence || err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown;
  }
  return err instanceof Error && /wrong last sequence/i.test(err.message);
}

/**
 * Compare-and-set on a KV key that holds on a replicated bucket of a nats-server 2.9 cluster. kv.update and
 * kv.delete({ previousSeq }) rely on the expected last subject sequence alone, which nats-server before 2.11 checks
 * for a clustered stream (revision > 0) only at the leader before the raft proposal: two writes on one revision in
 * flight together both pass and both are stored (a lost update each caller was told succeeded). The server's msgID
 * duplicate check is made when a message is applied, so a msgID per (key, expected revision) lets one write per
 * revision through. Messages are written as @nats-io/kv writes them (a delete: no data, `KV-Operation: DEL`), with the
 * writer's marker (kv-writer.ts). A revision is the key's latest writer revision: answers the bus stored after it
 * (README, guarantees) do not make its writer's compare-and-set fail; the write goes past them.
 */
export class KvCompareAndSet {
  private readonly js: JetStreamClient;
  private jsm?: Promise<JetStreamManager>;

  constructor(private readonly nc: NatsConnection) {
    this.js = jetstream(nc);
  }

  /** The connection's JetStream manager, opened on first use (a failed open is tried again next time). */
  manager(): Promise<JetStreamManager> {
    this.jsm ??= jetstreamManager(this.nc).catch((err: unknown) => {
      this.jsm = undefined;
      throw err;
    });
    return this.jsm;
  }

  /**
   * Writes `value` (`null`: a delete marker) if the key's last revision is `expectedRevision` (0: the key holds no
   * message). Resolves with the new revision, or null when another write took that revision: the caller re-reads.
   * `writeId` names the write (default: a new one); a caller repeating a write whose outcome it never learnt passes
   * the same id and is given its revision if that earlier attempt was stored.
   */
  async write(at: KvKeyAt, expectedRevision: number, value: string | null, writeId?: string): Promise<number | null> {
    const id = writeId ?? randomUUID();
    const headers = kvWriterHeaders(keyOfSubject(at.subject));
    if (value === null) headers.set(KV_OPERATION_HEADER, 'DEL');
    headers.set(KV_WRITE_ID_HEADER, id);
    // Revision 0 is checked when the message is applied, on any server version: no msgID, which could outlive an
    // erasure of every message of the key (runledger erase) and refuse its next creation.
    let msgID = expectedRevision > 0 ? revisionSlotId(at.subject, expectedRevision) : undefined;
    let lastSubjectSequence = expectedRevision;
    for (let attempt = 0; ; attempt++) {
      let ack: PubAck | undefined;
      let failure: unknown;
      try {
        ack = await this.js.publish(at.subject, value ?? Empty, { headers, expect: { lastSubjectSequence }, ...(msgID ? { msgID } : {}) });
      } catch (err) {
        if (!isWrongLastSequence(err)) throw err;
        failure = err;
      }
      if (ack && !ack.duplicate) return ack.seq;
      const jsm = await this.manager();
      if (ack) {
        // A duplicate: another write took the revision, unless it was an earlier attempt of this one (stored just
        // before it). Ours only if the stored message is, byte for byte; another writer's, even with the same value,
        // is a conflict (two increments of one counter write the same bytes).
        const stored = await jsm.streams.getMessage(at.stream, { seq: ack.seq });
        return stored && isThisWrite(stored, at.subject, value, id) ? stored.seq : null;
      }
      // The common conflict, another writer's revision last, costs one read (the server names its sequence): every
      // revision of the key is read only when the last is not a writer's.
      const lastNow = await jsm.streams.getMessage(at.stream, lastSequenceIn(failure) ? { seq: lastSequenceIn(failure)! } : { last_by_subj: at.subject });
      if (lastNow && lastNow.subject === at.subject && writerDocument(lastNow, keyOfSubject(at.subject))) {
        return writeId !== undefined && isThisWrite(lastNow, at.subject, value, id) ? lastNow.seq : null;
      }
      const { writer, last } = await latestWriterRevision(jsm, at.stream, at.subject);
      // An earlier attempt of this write (only a repeated writeId can have been sent before) stored it already.
      if (writeId !== undefined && writer && isThisWrite(writer, at.subject, value, id)) return writer.seq;
      // The expected revision is still the key's latest writer revision, and only what the bus stored follows it:
      // go past that (compare-and-set on the subject's last message), keeping the one msgID per writer revision.
      if ((writer?.seq ?? 0) !== expectedRevision || last === lastSubjectSequence || attempt >= PAST_FOREIGN_TRIES) return null;
      lastSubjectSequence = last;
      msgID ??= deterministicUuid('kv-cas-past', at.subject, last);
    }
  }
}

/** The subject's last sequence a wrong-last-sequence refusal names (`wrong last sequence: 12`), if it does. */
function lastSequenceIn(err: unknown): number | undefined {
  const m = err instanceof Error ? /wrong last sequence: (\d+)/i.exec(err.message) : null;
  return m && Number(m[1]) > 0 ? Number(m[1]) : undefined;
}

function isThisWrite(stored: StoredMsg, subject: string, value: string | null, writeId: string): boolean {
  const operation = stored.header?.get(KV_OPERATION_HEADER) || 'PUT';
  return stored.subject === subject
    && stored.header?.get(KV_WRITE_ID_HEADER) === writeId
    && operation === (value === null ? 'DEL' : 'PUT')
    && Buffer.from(stored.data).equals(Buffer.from(value ?? '', 'utf8'));
}
