import { DiscardPolicy, JetStreamApiCodes, JetStreamApiError, RetentionPolicy, StorageType, type JetStreamManager, type StoredMsg, type StreamConfig } from '@nats-io/jetstream';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import { copiedByServer, directGet, EVENT_TYPE_HEADER, type StoredMessage } from '@runledger/event-log';

/**
 * Values the bus stores that no Runledger writer made. nats-server publishes a JetStream API answer (a PubAck, an API
 * response, a status) or a direct get's copy of a stored message to whatever reply subject a request names, inside
 * the account, and a KV bucket stores it when that subject is one of its keys (`$KV.<bucket>.<key>`); no permission
 * can refuse it (README, guarantees). So every reader of a key takes as its value the writer's revision, not simply
 * the last one, and every bucket keeps enough revisions (KV_HISTORY) that such a message cannot push a writer's out.
 */

/** Stored with every revision a Runledger writer makes: the key it was written for (a copy moved to another key names the wrong one). */
export const KV_WRITER_HEADER = 'Rl-Kv-Key';
/** The header @nats-io/kv marks a delete or purge with (kv.js `kvOperationHdr`, not exported). */
export const KV_OPERATION_HEADER = 'KV-Operation';

/**
 * Revisions kept per document key: a writer's value is still held after KV_HISTORY - 1 answers stored after it with
 * no write in between (each one a JetStream request an identity makes on purpose, naming the key); a writer's next
 * put goes past them. The KV_HISTORY-th pushes it out (README, known limits).
 */
export const KV_HISTORY = 8;

/** The headers a writer puts on a revision of `key` (the token after `$KV.<bucket>.`). */
export function kvWriterHeaders(key: string): MsgHdrs {
  const h = natsHeaders();
  h.set(KV_WRITER_HEADER, key);
  return h;
}

/**
 * Who stored a revision of `key`: `marked` (a writer of this release), `foreign` (the bus: a server answer, a copy of
 * another message, a status, a log event, or a writer's revision of another key), or `unmarked`: either a writer of an
 * earlier release (no marker then) or a server answer the caller tells apart by the value's shape (writerDocument).
 * `direct`: the message was read by a direct get, whose answer adds the server's headers once more.
 */
export function revisionMark(h: MsgHdrs | undefined, key: string, direct = false): 'marked' | 'unmarked' | 'foreign' {
  if (!h) return 'unmarked';
  // A status line (a direct get's 404, a pull request's 408): the server's, never a writer's.
  if (h.code !== 0 && h.code !== 200) return 'foreign';
  if (copiedByServer(h, direct)) return 'foreign';
  // Every log append carries it: a log message delivered onto a key by a pull request is no value.
  if (h.has(EVENT_TYPE_HEADER)) return 'foreign';
  const marker = h.get(KV_WRITER_HEADER);
  if (marker) return marker === key ? 'marked' : 'foreign';
  return 'unmarked';
}

/** Whether a stored revision is a delete (a writer's tombstone). */
export function isDeleteRevision(m: StoredRevision): boolean {
  const op = m.header?.get(KV_OPERATION_HEADER);
  return op === 'DEL' || op === 'PURGE';
}

/**
 * Whether a parsed JSON value has the shape of a JetStream answer: an API response (every one is typed
 * `io.nats.jetstream.api.v1.*`) or a publish acknowledgement (`{stream, seq[, duplicate][, domain]}` or `{error}`).
 * Used for unmarked revisions only: an earlier release's writer stored plain JSON objects.
 */
export function isServerAnswer(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  if (typeof v.type === 'string' && v.type.startsWith('io.nats.jetstream.api.')) return true;
  const keys = Object.keys(v);
  return keys.length > 0 && keys.every((k) => PUB_ACK_FIELDS.has(k)) && ('error' in v || ('stream' in v && 'seq' in v));
}
const PUB_ACK_FIELDS = new Set(['stream', 'seq', 'duplicate', 'domain', 'error']);

const utf8 = new TextDecoder();

/**
 * A document revision as a writer stored it: a delete (no value), or its JSON object; null when the bus stored it.
 * Legacy rule (why no recorded cutover is needed): an earlier release's writer stored unmarked JSON objects, and
 * what the server itself can store there unmarked is a JetStream answer, typed or an acknowledgement (isServerAnswer),
 * or an empty status; a copy carries the server's Nats-* headers, a log event its Rl-Event-Type. So an unmarked
 * revision is a writer's when it is a JSON object that is no server answer. (Not "unmarked after marked is foreign":
 * a read of the last message alone could not apply it without reading the key's history, on every read of a value
 * an earlier release wrote, and a reader and a writer must agree on which revision is the value.)
 */
export function writerDocument(m: StoredRevision, key: string, direct = false): { deleted: true } | { deleted: false; value: object } | null {
  const mark = revisionMark(m.header, key, direct);
  if (mark === 'foreign') return null;
  if (isDeleteRevision(m)) return m.data.length === 0 ? { deleted: true } : null;
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(m.data));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  if (mark === 'unmarked' && isServerAnswer(value)) return null;
  return { deleted: false, value };
}

/** A key's latest writer revision (null: none held) and the subject's last sequence (0: no message), read from every revision held. */
export async function latestWriterRevision(jsm: JetStreamManager, stream: string, subject: string): Promise<{ writer: StoredMsg | null; doc: ReturnType<typeof writerDocument>; last: number }> {
  const key = keyOfSubject(subject);
  let writer: StoredMsg | null = null;
  let doc: ReturnType<typeof writerDocument> = null;
  let last = 0;
  for (const m of await keyRevisions(jsm, stream, subject)) {
    last = m.seq;
    const d = writerDocument(m, key);
    if (!d) continue;
    writer = m;
    doc = d;
  }
  return { writer, doc, last };
}

/**
 * A key's latest writer revision (null: it holds none): its last message when a writer stored it (one read, as
 * kv.get makes), else the latest a writer stored before what the bus put after it (every revision held is read).
 * `direct`: read the last message by a direct get (a bucket with allow_direct and one replica), else at the leader.
 */
export async function readWriterRevision(jsm: JetStreamManager, stream: string, subject: string, direct: boolean): Promise<{ revision: number; doc: NonNullable<ReturnType<typeof writerDocument>> } | null> {
  const query = { last_by_subj: subject };
  // A direct get taken as the server stamps it (event-log directGet): the client's own read a status the bus stored
  // there (`NATS/1.0 404`) as "no value", hiding the document, and failed on a stored 408 (probe).
  const last: StoredRevision | null = direct ? revisionOf(await directGet(jsm, stream, query)) : await jsm.streams.getMessage(stream, query);
  if (!last || last.subject !== subject) return null;
  const doc = writerDocument(last, keyOfSubject(subject), direct);
  if (doc) return { revision: last.seq, doc };
  const held = await latestWriterRevision(jsm, stream, subject);
  return held.writer && held.doc ? { revision: held.writer.seq, doc: held.doc } : null;
}

/** A stored revision as a read hands it out: its position, body and headers. */
export type StoredRevision = Pick<StoredMsg, 'seq' | 'subject' | 'data' | 'header'>;

function revisionOf(m: StoredMessage | null): StoredRevision | null {
  return m ? { seq: m.seq, subject: m.subject, data: m.data, header: m.headers as MsgHdrs } : null;
}

/** The subject's key token (`$KV.<bucket>.<key>` → `<key>`). */
export function keyOfSubject(subject: string): string {
  return subject.split('.').slice(2).join('.');
}

/** The next message on `subject` at or after `seq`, read at the stream's leader (no direct get: it may lag); null when none. */
export async function nextOnSubject(jsm: JetStreamManager, stream: string, subject: string, seq: number): Promise<StoredMsg | null> {
  try {
    // nats-server 2.9 answers next_by_subj on the message API; the client's type only names the direct-get form.
    return await jsm.streams.getMessage(stream, { next_by_subj: subject, seq } as unknown as { seq: number });
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.NoMessageFound) return null;
    throw err;
  }
}

/** Every revision the stream holds for one key, oldest first (at most the bucket's history: read only when the last is foreign). */
export async function keyRevisions(jsm: JetStreamManager, stream: string, subject: string): Promise<StoredMsg[]> {
  const out: StoredMsg[] = [];
  for (let m = await nextOnSubject(jsm, stream, subject, 1); m; m = await nextOnSubject(jsm, stream, subject, m.seq + 1)) out.push(m);
  return out;
}

/**
 * A bucket's stream as @nats-io/kv creates it (Bucket.init), but with no rollups: a direct get's copy of a message that
 * carried `Nats-Rollup: sub` (an object's metadata, a KV purge) would otherwise, stored on a key, delete every
 * revision of that key (measured on 2.9.10). Runledger never purges a key (erasure deletes messages securely).
 */
export function kvStreamConfig(bucket: string, opts: KvBucketOptions): Partial<StreamConfig> & { name: string } {
  return {
    name: `KV_${bucket}`, subjects: [`$KV.${bucket}.>`], retention: RetentionPolicy.Limits, discard: DiscardPolicy.New,
    max_msgs_per_subject: opts.history, max_msg_size: -1, storage: StorageType.File, num_replicas: opts.replicas ?? 1,
    allow_direct: opts.direct ?? true, allow_rollup_hdrs: false, deny_delete: false, deny_purge: false,
    ...(opts.description ? { description: opts.description } : {}),
    ...(opts.republish ? { republish: opts.republish } : {}),
  };
}

/** A bucket's settings: `history` -1 keeps every revision. */
export interface KvBucketOptions {
  history: number;
  replicas?: number;
  direct?: boolean;
  description?: string;
  republish?: StreamConfig['republish'];
}

/**
 * Creates a bucket (kvStreamConfig) or, for one an earlier release created, raises its history and stops rollups
 * (kvGuardUpdate): the bootstrap admin's act (services may not create or update streams).
 */
export async function ensureKvBucket(jsm: JetStreamManager, bucket: string, opts: KvBucketOptions): Promise<void> {
  const stream = `KV_${bucket}`;
  const info = await jsm.streams.info(stream).catch((err: unknown) => {
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) return null;
    throw err;
  });
  if (!info) {
    await jsm.streams.add(kvStreamConfig(bucket, opts));
    return;
  }
  const update = kvGuardUpdate(info.config, opts.history);
  if (update) await jsm.streams.update(stream, { ...info.config, ...update });
}

/**
 * What the bootstrap changes on a bucket created by an earlier release (history 1, rollups allowed): more revisions
 * per key (never fewer) and no rollups. Returns the fields to update, or null when there is nothing to change.
 */
export function kvGuardUpdate(config: StreamConfig, history: number): Partial<StreamConfig> | null {
  const current = config.max_msgs_per_subject;
  const raise = history === -1 ? current !== -1 : current !== -1 && current < history;
  // Discard-new per subject needs a per-subject limit: a bucket that keeps every revision has none.
  const perSubject = history === -1 && config.discard_new_per_subject === true;
  if (!raise && !config.allow_rollup_hdrs && !perSubject) return null;
  return { max_msgs_per_subject: raise ? history : current, allow_rollup_hdrs: false, ...(perSubject ? { discard_new_per_subject: false } : {}) };
}
