import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { DiscardPolicy, jetstreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { SealedValue } from '@runledger/contracts';
import { AppError, LruMap } from '@runledger/kernel';
import { nextMatchingOnLeader } from '@runledger/event-log';
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

/** KV key of an owner: kinds and ids are kept apart, and any id maps to a valid KV token. */
export function dataKeyName(owner: DataOwner): string {
  return `${owner.kind}.${Buffer.from(owner.id, 'utf8').toString('base64url')}`;
}

/**
 * Creates the data-key bucket (the bootstrap admin does; services may not create streams). History 1: a purge
 * removes the key material. Discard-new per subject: the server refuses any write to a key that holds a value, so a
 * service's publish on `$KV.rl_data_keys.<key>` (its permission cannot say "create only") neither replaces a key nor
 * overwrites an erasure's tombstone; only the admin's stream purge (JetStream API) clears a key (README "Erasure").
 */
export async function provisionDataKeys(nc: NatsConnection, replicas = 1): Promise<void> {
  // On a cluster every read goes to the bucket's leader (no direct gets from a replica that may lag).
  // The republish is set when the bucket is created: nats-server 2.9 cannot add it to an existing one, whose
  // followers go on looking every ERASURE_POLL_MS.
  await new Kvm(nc).create(DATA_KEYS_BUCKET, {
    history: 1, replicas, allow_direct: replicas === 1, description: 'Runledger per-user and per-case data keys (erasure)',
    republish: { src: `$KV.${DATA_KEYS_BUCKET}.>`, dest: `${DATA_KEYS_WRITTEN}.>`, headers_only: true },
  });
  const jsm = await jetstreamManager(nc);
  const stream = `KV_${DATA_KEYS_BUCKET}`;
  const { config } = await jsm.streams.info(stream);
  if (!config.discard_new_per_subject) await jsm.streams.update(stream, { discard: DiscardPolicy.New, discard_new_per_subject: true });
}

/** Data keys in the NATS KV bucket the bootstrap created (history 1: a purge removes the key material from its stream). */
export class KvDataKeyStore implements DataKeyStore {
  private kv?: Promise<KV>;

  constructor(
    private readonly nc: NatsConnection,
    private readonly bucket = DATA_KEYS_BUCKET,
    /** How often a follower reads the bucket with no cue (see watchErasures). */
    private readonly lookEveryMs = { cued: ERASURE_LOOK_MS, uncued: ERASURE_POLL_MS },
  ) {}

  private bucketKv(): Promise<KV> {
    this.kv ??= new Kvm(this.nc).open(this.bucket).catch((err: unknown) => {
      this.kv = undefined;
      throw err;
    });
    return this.kv;
  }

  async stateOf(name: string): Promise<DataKeyState> {
    const entry = await (await this.bucketKv()).get(name);
    if (!entry) return 'absent';
    if (entry.operation !== 'PUT') return 'erased'; // purged: erased before the tombstone was written
    const text = entry.string();
    if (text === ERASED) return 'erased';
    // Not a key this store wrote (32 random bytes, canonical base64): what an identity had the server store in the
    // empty slot (a JetStream API answer sent to a request's reply subject: README, guarantees). No seal or open may
    // use it. Checked as text: Buffer.from skips what is not base64, and an acknowledgement's JSON can decode to 32 bytes.
    if (!CANONICAL_KEY.test(text)) throw new AppError('DATA.KEY_UNUSABLE');
    return Buffer.from(text, 'base64');
  }

  async keyFor(owner: DataOwner): Promise<Buffer | null> {
    const name = dataKeyName(owner);
    const state = await this.stateOf(name);
    if (state !== 'absent') return state === 'erased' ? null : state;
    try {
      await (await this.bucketKv()).create(name, randomBytes(KEY_BYTES).toString('base64'));
    } catch {
      /* another writer created it first: read theirs */
    }
    const created = await this.stateOf(name);
    if (created === 'absent') throw new AppError('DEPENDENCY.DOWN', 'The data key store did not keep a new key; retry.');
    return created === 'erased' ? null : created;
  }

  /**
   * The admin's act (a secure message delete): the bucket refuses every write to a key that holds a value
   * (`provisionDataKeys`), so a key is one message, written once, and never an overwritten revision whose bytes the
   * server dropped without erasing them.
   */
  async destroy(owner: DataOwner): Promise<void> {
    const name = dataKeyName(owner);
    // The key's message is overwritten with random bytes in the block file (a purge would only mark it deleted, and
    // a disk read gave the key back: issue 23); the tombstone, created in the emptied key, stops re-creation and can
    // never be overwritten (create fails on a key that exists, and discard-new refuses a plain put).
    await secureEraseSubject(await jetstreamManager(this.nc), `KV_${this.bucket}`, `$KV.${this.bucket}.${name}`);
    await (await this.bucketKv()).create(name, ERASED);
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
    const written = info.config.republish?.src === `${prefix}>` && info.config.republish.dest.endsWith('.>') ? info.config.republish.dest : undefined;
    let next = info.state.last_seq + 1;
    // A cue (the server's announcement of a write) reads on at once; `poll` is defined below, before any cue can come.
    const cues = written ? this.nc.subscribe(written, { callback: () => void poll() }) : undefined;
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
          const operation = m.headers?.get('KV-Operation');
          if ((operation && operation !== 'PUT') || new TextDecoder().decode(m.data) === ERASED) onErased(m.subject.slice(prefix.length));
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

/**
 * A value sealed for one owner: AES-256-GCM, the owner's key name (`dataKeyName`) as associated data so a ciphertext
 * cannot be moved. Its stored shape is a contract (proto-contracts/schemas/runs/sealed-value.schema.json).
 */
export type { SealedValue };

/** What a sealed value reads as once its key is destroyed: `"[erased]"` for text, `{ erased: true }` otherwise. */
export const ERASED_VALUE = { erased: true } as const;
export const ERASED_TEXT = '[erased]';

export function isSealed(value: unknown): value is SealedValue {
  return typeof value === 'object' && value !== null && (value as { sealed?: unknown }).sealed === 'aes-256-gcm/v1';
}

/** Random nonces drawn from a pool: one randomBytes call per 512 seals instead of one each (it dominated a seal's CPU). */
const NONCE = 12;
let noncePool = Buffer.alloc(0);
let nonceAt = 0;
function freshNonce(): Buffer {
  if (nonceAt + NONCE > noncePool.length) {
    noncePool = randomBytes(NONCE * 512);
    nonceAt = 0;
  }
  nonceAt += NONCE;
  return noncePool.subarray(nonceAt - NONCE, nonceAt);
}

/** Owners' key names as associated data, made once per name (a seal would allocate it each time); bounded. */
const AAD_KEPT = 1_000;
const aads = new Map<string, Buffer>();
function aadOf(ownerName: string): Buffer {
  let aad = aads.get(ownerName);
  if (!aad) {
    if (aads.size >= AAD_KEPT) aads.clear();
    aad = Buffer.from(ownerName);
    aads.set(ownerName, aad);
  }
  return aad;
}

/** Seals JSON data with a key (synchronous: the key is already at hand). */
export function sealWithKey(key: Buffer, ownerName: string, value: unknown): SealedValue {
  return sealJsonWithKey(key, ownerName, JSON.stringify(value), typeof value === 'string');
}

/** Seals a value's JSON text (`json`: JSON.stringify of it; `text`: the value is a string). */
export function sealJsonWithKey(key: Buffer, ownerName: string, json: string, text: boolean): SealedValue {
  const iv = freshNonce();
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aadOf(ownerName));
  // GCM's final() adds no bytes (a stream mode): no copy of the ciphertext to join it.
  const head = cipher.update(json, 'utf8');
  const tail = cipher.final();
  const ciphertext = tail.length ? Buffer.concat([head, tail]) : head;
  return {
    sealed: 'aes-256-gcm/v1', owner: ownerName, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), ciphertext: ciphertext.toString('base64'),
    ...(text ? { text: true as const } : {}),
  };
}

/**
 * Opens a sealed value with its key, or the erased marker when the key was destroyed. A sealed value's key was
 * created before it was sealed, so "absent" is a read that is behind (a replica lagging on a cluster), never
 * an erasure: it is a retryable error, so no caller takes live data for erased.
 */
export function openWithKey(key: Buffer | 'erased' | 'absent', value: SealedValue): unknown {
  if (key === 'absent') throw new AppError('DEPENDENCY.DOWN', 'The data key is not readable yet; retry.');
  if (key === 'erased') return value.text ? ERASED_TEXT : ERASED_VALUE;
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(value.iv, 'base64'));
  decipher.setAAD(Buffer.from(value.owner));
  decipher.setAuthTag(Buffer.from(value.tag, 'base64'));
  const plain = Buffer.concat([decipher.update(Buffer.from(value.ciphertext, 'base64')), decipher.final()]);
  return JSON.parse(plain.toString('utf8')) as unknown;
}

/** The refusal for new data of an erased owner: nothing is stored for them again (README "Erasure"). */
export function ownerErased(owner: DataOwner): AppError {
  return new AppError('DATA.ERASED', `The data of this ${owner.kind} was erased; nothing more is stored for it.`);
}

/** Seals JSON data for an owner with that owner's data key; refuses (DATA.ERASED) once the key was destroyed. */
export function sealFor(keys: DataKeyStore, owner: DataOwner, value: unknown): Promise<SealedValue> {
  return sealJsonFor(keys, owner, JSON.stringify(value), typeof value === 'string');
}

/** sealFor of a value's JSON text (`json`: JSON.stringify of it, kept by a caller that opens what it sealed). */
export async function sealJsonFor(keys: DataKeyStore, owner: DataOwner, json: string, text: boolean): Promise<SealedValue> {
  const key = await keys.keyFor(owner);
  if (!key) throw ownerErased(owner);
  return sealJsonWithKey(key, dataKeyName(owner), json, text);
}

/** Opens a sealed value (the key it names); the erased marker when that key was destroyed. Unsealed values pass through. */
export async function openSealed(keys: DataKeyStore, value: unknown): Promise<unknown> {
  if (!isSealed(value)) return value;
  return openWithKey(await keys.stateOf(value.owner), value);
}
