import { randomBytes } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamManager, type StoredMsg } from '@nats-io/jetstream';
import { AppError, LruMap } from '@runledger/kernel';
import { nextMatchingOnLeader } from '@runledger/event-log';
import { ensureKvBucket, isDeleteRevision, isWrongLastSequence, KV_OPERATION_HEADER, kvWriterHeaders, nextOnSubject, revisionMark } from '@runledger/document-store';
import { secureEraseSubject } from './secure-erase';

/** Whose personal or case data a key protects: one key per user and one per case. */
export interface DataOwner {
  kind: 'user' | 'case';
  id: string;
}

/** A key's state: its material, destroyed for good (the owner was erased), or not created yet. */
export type DataKeyState = Buffer | 'erased' | 'absent';

/**
 * Where data keys live: outside the log, so destroying a key makes every event sealed with it unreadable while
 * the log (and the audit chain, which hashes the ciphertext) stays intact. The NATS KV bucket is the default.
 */
export interface DataKeyStore {
  /** The owner's key, created on first use; null when it was destroyed (the owner was erased). */
  keyFor(owner: DataOwner): Promise<Buffer | null>;
  /** The key stored under a key name (`dataKeyName`), without creating one. */
  stateOf(name: string): Promise<DataKeyState>;
  /**
   * Destroys the key for good and leaves a tombstone so it is never created again. "For good" includes the disk:
   * no copy of the key may be left in the store's files (issue 23; `KvDataKeyStore` deletes its message securely;
   * a KMS adapter deletes the key in the KMS).
   */
  destroy(owner: DataOwner): Promise<void>;
}

export const DATA_KEYS_BUCKET = 'rl_data_keys';
const ERASED = 'erased';
/** A data key's size: AES-256. */
const KEY_BYTES = 32;
/** How the store writes a key: 32 bytes in standard base64 (43 characters and one pad). */
const CANONICAL_KEY = /^[A-Za-z0-9+/]{43}=$/;
/**
 * Where the data-key bucket, as the bootstrap creates it, has the server announce each write: headers only (the
 * key's name in Nats-Subject, never its material), so a follower reads on at once instead of looking every
 * ERASURE_POLL_MS. Only nats-server publishes there (no identity may); a copy is only a cue to read the bucket.
 */
export const DATA_KEYS_WRITTEN = 'rl.datakeys.written';
/**
 * What a follower subscribes to for those announcements: a key's two tokens (kind and owner: dataKeyName), as
 * permissions.yaml `data_keys.written` grants it. `rl.datakeys.written.>` was refused by the server (probe), and the
 * followers fell back to their 5 s look.
 */
export const DATA_KEYS_WRITTEN_FILTER = `${DATA_KEYS_WRITTEN}.*.*`;

/** KV key of an owner: kinds and ids are kept apart, and any id maps to a valid KV token. */
export function dataKeyName(owner: DataOwner): string {
  return `${owner.kind}.${Buffer.from(owner.id, 'utf8').toString('base64url')}`;
}

/**
 * Creates the data-key bucket (the bootstrap admin does; services may not create streams), or brings one an earlier
 * release created (history 1, discard-new per subject) to these settings. Every revision of a key is kept and no
 * rollups are allowed: nats-server stores JetStream answers and direct-get copies on a key's subject when a request
 * names it as its reply subject (README, guarantees), and with one revision per key such a message either took an
 * empty slot for good (discard-new) or pushed the key out (discard-old: the owner's data crypto-erased, and the key's
 * bytes left behind, unerased). Now the key is the slot's first revision a writer made (slotValue): whatever is stored
 * after it, by the bus or by a service's own publish (its permission cannot say "create only"), is never read as the
 * key and never replaces it or an erasure's tombstone; what the bus stored before it is gone past (keyFor).
 * `runledger erase` erases every revision of the key securely (destroy).
 */
export async function provisionDataKeys(nc: NatsConnection, replicas = 1): Promise<void> {
  // On a cluster every read goes to the bucket's leader (no direct gets from a replica that may lag).
  // The republish is set when the bucket is created: nats-server 2.9 cannot add it to an existing one, whose
  // followers go on looking every ERASURE_POLL_MS.
  await ensureKvBucket(await jetstreamManager(nc), DATA_KEYS_BUCKET, {
    history: -1, replicas, direct: replicas === 1, description: 'Runledger per-user and per-case data keys (erasure)',
    republish: { src: `$KV.${DATA_KEYS_BUCKET}.>`, dest: `${DATA_KEYS_WRITTEN}.>`, headers_only: true },
  });
}

const utf8 = new TextDecoder();

/**
 * What one stored revision of a key slot says, or null when no writer of this store made it. Keys are written once:
 * 32 random bytes in canonical base64, or the erasure's tombstone. An earlier release wrote them without the writer's
 * marker; the shape alone tells those from the bus's messages, since nats-server stores only JSON answers, empty
 * statuses and copies (which carry its Nats-* headers) there, never a canonical key or the tombstone's text. Checked
 * as text: Buffer.from skips what is not base64, and an acknowledgement's JSON can decode to 32 bytes.
 */
function slotValue(m: StoredMsg, name: string): Buffer | 'erased' | null {
  if (revisionMark(m.header, name) === 'foreign') return null;
  // An earlier release erased by a purge before it wrote the tombstone (a DEL or PURGE marker of this key).
  if (isDeleteRevision(m)) return m.data.length === 0 ? 'erased' : null;
  const text = utf8.decode(m.data);
  if (text === ERASED) return 'erased';
  return CANONICAL_KEY.test(text) ? Buffer.from(text, 'base64') : null;
}

/** How many times a key or tombstone write goes past messages the bus keeps storing on its slot before giving up. */
const SLOT_WRITE_TRIES = 4;

/** Data keys in the NATS KV bucket the bootstrap created (every revision kept: see provisionDataKeys). */
export class KvDataKeyStore implements DataKeyStore {
  private jsm?: Promise<JetStreamManager>;

  constructor(
    private readonly nc: NatsConnection,
    private readonly bucket = DATA_KEYS_BUCKET,
    /** How often a follower reads the bucket with no cue (see watchErasures). */
    private readonly lookEveryMs = { cued: ERASURE_LOOK_MS, uncued: ERASURE_POLL_MS },
  ) {}

  private manager(): Promise<JetStreamManager> {
    this.jsm ??= jetstreamManager(this.nc).catch((err: unknown) => {
      this.jsm = undefined;
      throw err;
    });
    return this.jsm;
  }

  private subjectOf(name: string): string {
    return `$KV.${this.bucket}.${name}`;
  }

  /**
   * A slot's first writer revision (the key or the tombstone), read at the bucket's leader from the slot's first
   * message on; `last`: the slot's last sequence when it holds none (0: no message at all).
   */
  private async readSlot(name: string): Promise<{ state: DataKeyState; last: number }> {
    const jsm = await this.manager();
    const stream = `KV_${this.bucket}`;
    const subject = this.subjectOf(name);
    let last = 0;
    for (let m = await nextOnSubject(jsm, stream, subject, 1); m; m = await nextOnSubject(jsm, stream, subject, m.seq + 1)) {
      const value = slotValue(m, name);
      if (value) return { state: value, last: m.seq };
      last = m.seq;
    }
    return { state: 'absent', last };
  }

  async stateOf(name: string): Promise<DataKeyState> {
    return (await this.readSlot(name)).state;
  }

  /**
   * Writes `value` as the slot's next message if its last is still `last` (compare-and-set on the subject's last
   * sequence, which goes past messages the bus stored there); false when something was stored meanwhile.
   */
  private async writeSlot(name: string, value: string, last: number): Promise<boolean> {
    try {
      await jetstream(this.nc).publish(this.subjectOf(name), value, { headers: kvWriterHeaders(name), expect: { lastSubjectSequence: last } });
      return true;
    } catch (err) {
      if (isWrongLastSequence(err)) return false;
      // A bucket the bootstrap has not brought to this release's settings yet (one message per key, discard-new):
      // the message the bus stored in the slot takes its only place until then.
      if (err instanceof Error && /maximum messages per subject/i.test(err.message)) throw new AppError('DATA.KEY_UNUSABLE');
      throw err;
    }
  }

  async keyFor(owner: DataOwner): Promise<Buffer | null> {
    const name = dataKeyName(owner);
    for (let attempt = 0; attempt < SLOT_WRITE_TRIES; attempt++) {
      const { state, last } = await this.readSlot(name);
      if (state !== 'absent') return state === 'erased' ? null : state;
      // Another writer may create it first, or the bus store a message meanwhile: read again, the first key wins.
      await this.writeSlot(name, randomBytes(KEY_BYTES).toString('base64'), last);
    }
    const created = await this.stateOf(name);
    if (created === 'absent') throw new AppError('DEPENDENCY.DOWN', 'The data key store did not keep a new key; retry.');
    return created === 'erased' ? null : created;
  }

  /**
   * The admin's act: every message of the key's slot is deleted securely (the key, and anything stored after or
   * before it), then the tombstone is written into the emptied slot, so it is the slot's first writer revision for
   * good and the key is never created again. A message stored between the two (a service creating the key, an
   * answer of the bus) is erased in its turn.
   */
  async destroy(owner: DataOwner): Promise<void> {
    const name = dataKeyName(owner);
    const jsm = await this.manager();
    for (let attempt = 0; ; attempt++) {
      // Overwritten with random bytes in the block file (a purge would only mark them deleted, and a disk read gave
      // the key back: issue 23).
      await secureEraseSubject(jsm, `KV_${this.bucket}`, this.subjectOf(name));
      if (await this.writeSlot(name, ERASED, 0)) return;
      if (attempt + 1 >= SLOT_WRITE_TRIES) throw new AppError('DEPENDENCY.DOWN', 'The data key slot kept changing during its erasure; retry.');
    }
  }

  /**
   * Calls `onErased` for each key destroyed from now on, and `onEnded` if the follower ever stops (the bus failed
   * under it); resolves once it is live. It reads the bucket by direct gets, not by a KV watch: a watch is a consumer,
   * which no service may create (deploy/nats/permissions.yaml), and a core subscription on the bucket's subjects would
   * hand it the admin's acknowledgement inbox to answer. It reads on at once when the server announces a write
   * (DATA_KEYS_WRITTEN) or the connection comes back (a cue sent meanwhile was lost), and every ERASURE_LOOK_MS
   * besides; on a bucket created before the announcements, every ERASURE_POLL_MS.
   */
  async watchErasures(onErased: (name: string) => void, onEnded: () => void = () => undefined): Promise<void> {
    const jsm = await jetstreamManager(this.nc);
    const stream = `KV_${this.bucket}`;
    const prefix = `$KV.${this.bucket}.`;
    const info = await jsm.streams.info(stream);
    const written = info.config.republish?.src === `${prefix}>` && info.config.republish.dest === `${DATA_KEYS_WRITTEN}.>`;
    let next = info.state.last_seq + 1;
    // A cue (the server's announcement of a write) reads on at once; `poll` is defined below, before any cue can come.
    const cues = written ? this.nc.subscribe(DATA_KEYS_WRITTEN_FILTER, { callback: () => void poll() }) : undefined;
    let polling = false;
    let again = false;
    let ended = false;
    // A cue published while the connection was away never arrives: read on when it comes back (stopped in end()).
    const statuses = cues ? this.nc.status() : undefined;
    const end = () => {
      if (ended) return;
      ended = true;
      clearInterval(timer);
      cues?.unsubscribe();
      // Typed AsyncIterable by nats.js; it is the client's queued iterator, whose stop() drops its listener now.
      (statuses as { stop?: () => void } | undefined)?.stop?.();
      onEnded();
    };
    const poll = async (): Promise<void> => {
      if (ended) return;
      // A cue while a read is under way: read again after it (the write may have come after its last get).
      if (polling) return void (again = true);
      polling = true;
      again = false;
      try {
        // Each write after the last one seen, in order; a purge leaves gaps, which next_by_subj steps over. The
        // leader answers: a replicated bucket has no direct gets, and a lagging replica's "none" would miss an erasure.
        for (let m = await nextMatchingOnLeader(jsm, stream, `${prefix}>`, next); m; m = await nextMatchingOnLeader(jsm, stream, `${prefix}>`, next)) {
          const name = m.subject.slice(prefix.length);
          const operation = m.headers?.get(KV_OPERATION_HEADER);
          const erasure = (operation && operation !== 'PUT') || utf8.decode(m.data) === ERASED;
          // Only a writer's tombstone that is the slot's value: not a copy of another slot's the bus stored here, nor a
          // tombstone a service published after a live key (the key stays the slot's value: slotValue).
          if (erasure && revisionMark(m.headers, name) !== 'foreign' && (await this.stateOf(name)) === 'erased') onErased(name);
          next = m.seq + 1;
        }
      } catch {
        end();
      } finally {
        polling = false;
      }
      if (again) return poll();
    };
    const timer = setInterval(() => void poll(), written ? this.lookEveryMs.cued : this.lookEveryMs.uncued);
    timer.unref(); // a process may end while it follows
    void this.nc.closed().then(end);
    if (!statuses) return;
    void (async () => {
      for await (const status of statuses) {
        if (ended) break;
        if (status.type === 'reconnect') void poll();
      }
    })();
    // Subscribed at the server: a write after `next` is read now or announced from here on.
    try {
      await this.nc.flush();
    } catch (err) {
      end();
      throw err;
    }
    void poll();
  }
}

/**
 * How often each service looks for destroyed keys on a bucket created before the announcements: the most an erased
 * owner's key stays usable after `runledger erase` there.
 */
const ERASURE_POLL_MS = 500;
/** How often it looks besides the announcements (DATA_KEYS_WRITTEN), which come at once: a guard, not the path. */
const ERASURE_LOOK_MS = 5_000;

/** How many owners' keys a process keeps (least recently used go first; the bucket still has them). */
const KEYS_KEPT = 50_000;

/**
 * Keys cached in process: sealing is on the append hot path, so a known key costs one map lookup. A follower of the
 * bucket drops a key once it reads the destruction (asynchronously: within ERASURE_POLL_MS of `runledger erase`);
 * from then on no service can open the data. The cache is bounded (a service lives through millions of users):
 * a key it let go of is read from the bucket again, which answers for erased owners too.
 */
export class CachedDataKeys implements DataKeyStore {
  private readonly cache = new LruMap<string, Buffer | 'erased'>(KEYS_KEPT);
  private watching?: Promise<void>;

  constructor(private readonly store: KvDataKeyStore) {}

  private ready(): Promise<void> {
    // The watch is live before the first key is cached: no destroy can slip between the read and the watch.
    // A watch that ended may have missed a destruction: forget every cached key and watch again on the next use.
    const watchEnded = () => {
      this.watching = undefined;
      this.cache.clear();
    };
    this.watching ??= this.store.watchErasures((name) => this.cache.set(name, 'erased'), watchEnded).catch((err: unknown) => {
      this.watching = undefined;
      throw err;
    });
    return this.watching;
  }

  /** The key or erasure this process holds for a key name, without waiting; undefined when it must be read (keyFor, stateOf). */
  cached(name: string): Buffer | 'erased' | undefined {
    return this.cache.get(name);
  }

  async keyFor(owner: DataOwner): Promise<Buffer | null> {
    const name = dataKeyName(owner);
    const hit = this.cache.get(name);
    if (hit) return hit === 'erased' ? null : hit;
    await this.ready();
    const key = await this.store.keyFor(owner);
    if (!this.cache.has(name)) this.cache.set(name, key ?? 'erased');
    return this.cache.get(name) === 'erased' ? null : key;
  }

  async stateOf(name: string): Promise<DataKeyState> {
    const hit = this.cache.get(name);
    if (hit) return hit;
    await this.ready();
    const state = await this.store.stateOf(name);
    if (state !== 'absent' && !this.cache.has(name)) this.cache.set(name, state);
    return this.cache.get(name) ?? state;
  }

  async destroy(owner: DataOwner): Promise<void> {
    await this.store.destroy(owner);
    this.cache.set(dataKeyName(owner), 'erased');
  }
}
