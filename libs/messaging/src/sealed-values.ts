/**
 * Values sealed for one owner with that owner's data key (AES-256-GCM): sealing, opening, and what a value reads as
 * once the key is destroyed. The keys themselves are kept by data-keys.ts.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SealedValue } from '@runledger/contracts';
import { AppError } from '@runledger/kernel';
import { dataKeyName, type DataKeyStore, type DataOwner } from './data-keys';

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
