import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { Kvm, type KV } from '@nats-io/kv';

/** Whose personal or case data a key protects: one key per user and one per case. */
export interface DataOwner {
  kind: 'user' | 'case';
  id: string;
}

/**
 * Where data keys live: outside the log, so destroying a key makes every event sealed with it unreadable while
 * the log (and the audit chain, which hashes the ciphertext) stays intact. The NATS KV bucket is the default.
 */
export interface DataKeyStore {
  /** The owner's key, created on first use; null when it was destroyed (the owner was erased). */
  keyFor(owner: DataOwner): Promise<Buffer | null>;
  /** The owner's key if it exists, without creating one. */
  existing(owner: DataOwner): Promise<Buffer | null>;
  /** Destroys the key for good (no history kept) and leaves a tombstone so it is never created again. */
  destroy(owner: DataOwner): Promise<void>;
}

export const DATA_KEYS_BUCKET = 'rl_data_keys';
const ERASED = 'erased';

/** KV key of an owner: kinds and ids are kept apart, and any id maps to a valid KV token. */
export function dataKeyName(owner: DataOwner): string {
  return `${owner.kind}.${Buffer.from(owner.id, 'utf8').toString('base64url')}`;
}

/** Data keys in a NATS KV bucket with history 1: a purge removes the key material from the bucket's stream. */
export class KvDataKeyStore implements DataKeyStore {
  private kv?: Promise<KV>;

  constructor(private readonly nc: NatsConnection, private readonly bucket = DATA_KEYS_BUCKET) {}

  private bucketKv(): Promise<KV> {
    this.kv ??= new Kvm(this.nc).create(this.bucket, { history: 1, description: 'Runledger per-user and per-case data keys (erasure)' });
    return this.kv;
  }

  async existing(owner: DataOwner): Promise<Buffer | null> {
    const entry = await (await this.bucketKv()).get(dataKeyName(owner));
    if (!entry || entry.operation !== 'PUT') return null;
    const text = entry.string();
    return text === ERASED ? null : Buffer.from(text, 'base64');
  }

  async keyFor(owner: DataOwner): Promise<Buffer | null> {
    const kv = await this.bucketKv();
    const name = dataKeyName(owner);
    const entry = await kv.get(name);
    if (entry && entry.operation === 'PUT') return entry.string() === ERASED ? null : Buffer.from(entry.string(), 'base64');
    if (entry && entry.operation !== 'PUT') return null; // purged: erased before the tombstone was written
    try {
      await kv.create(name, randomBytes(32).toString('base64'));
    } catch {
      /* another writer created it first: read theirs */
    }
    return this.existing(owner);
  }

  async destroy(owner: DataOwner): Promise<void> {
    const kv = await this.bucketKv();
    const name = dataKeyName(owner);
    // Purge drops every stored revision (the key material); the tombstone put after it stops re-creation.
    await kv.purge(name);
    await kv.put(name, ERASED);
  }
}

/** A value sealed for one owner: AES-256-GCM, the owner named as associated data so a ciphertext cannot be moved. */
export interface SealedValue {
  sealed: 'aes-256-gcm/v1';
  owner: string;
  iv: string;
  tag: string;
  ciphertext: string;
}

export const ERASED_VALUE = { erased: true } as const;

export function isSealed(value: unknown): value is SealedValue {
  return typeof value === 'object' && value !== null && (value as { sealed?: unknown }).sealed === 'aes-256-gcm/v1';
}

/** Seals JSON data for an owner with that owner's data key. */
export async function sealFor(keys: DataKeyStore, owner: DataOwner, value: unknown): Promise<SealedValue> {
  const key = await keys.keyFor(owner);
  if (!key) throw new Error(`the data key of ${owner.kind} ${owner.id} was destroyed; nothing more is stored for it`);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const name = dataKeyName(owner);
  cipher.setAAD(Buffer.from(name));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return { sealed: 'aes-256-gcm/v1', owner: name, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), ciphertext: ciphertext.toString('base64') };
}

/** Opens a sealed value; `{ erased: true }` when its owner's key was destroyed. Unsealed values pass through. */
export async function openFor(keys: DataKeyStore, owner: DataOwner, value: unknown): Promise<unknown> {
  if (!isSealed(value)) return value;
  const key = await keys.existing(owner);
  if (!key) return ERASED_VALUE;
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(value.iv, 'base64'));
  decipher.setAAD(Buffer.from(value.owner));
  decipher.setAuthTag(Buffer.from(value.tag, 'base64'));
  const plain = Buffer.concat([decipher.update(Buffer.from(value.ciphertext, 'base64')), decipher.final()]);
  return JSON.parse(plain.toString('utf8')) as unknown;
}
