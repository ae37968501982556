import { createHash } from 'node:crypto';
import type { JetStreamClient, JetStreamManager, StoredMsg } from '@nats-io/jetstream';
import { nuid } from '@nats-io/nats-core';
import { keyRevisions, revisionMark, kvWriterHeaders } from '@runledger/document-store';

/**
 * An object's description in a JetStream object store (`$O.<bucket>.M.<name>`), read and written so that what the bus
 * stores on its subject (a JetStream answer or a direct get's copy sent to a request's reply subject: README,
 * guarantees) never hides or stands in for it. @nats-io/obj reads the subject's last message as the description and
 * writes it with `Nats-Rollup: sub`; its stream must then allow rollups, and a copy of any description stored on
 * another object's subject (a chunk's or a description's) deleted every message there. Artifacts are written once,
 * so Runledger writes them itself, without a rollup, on a stream that refuses them (the bootstrap sets it).
 */
export interface ObjectDescription {
  name: string;
  bucket: string;
  nuid: string;
  size: number;
  chunks: number;
  digest: string;
  deleted?: boolean;
  mtime?: string;
  metadata?: Record<string, string>;
  options?: { max_chunk_size?: number };
  /** The description's stream sequence. */
  revision: number;
}

/** The object store's token for an object's name in its description subject (base64url with padding, as nats.js). */
export function objectMetaToken(name: string): string {
  return Buffer.from(name, 'utf8').toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
}

const utf8 = new TextDecoder();

/**
 * A description as a writer stored it, or null when the bus did: a copy (the server's Nats-* headers), a status, a
 * JetStream answer (no name, nuid or digest), or another object's description (its name is not this subject's).
 * @nats-io/obj's descriptions (before this release) carry no marker and pass on their shape alone.
 */
function writerDescription(m: StoredMsg, bucket: string): ObjectDescription | null {
  const token = m.subject.slice(`$O.${bucket}.M.`.length);
  if (revisionMark(m.header, token) === 'foreign') return null;
  let d: Partial<ObjectDescription>;
  try {
    d = JSON.parse(utf8.decode(m.data)) as Partial<ObjectDescription>;
  } catch {
    return null;
  }
  if (typeof d !== 'object' || d === null || typeof d.name !== 'string' || objectMetaToken(d.name) !== token) return null;
  if (d.bucket !== bucket || typeof d.nuid !== 'string' || typeof d.digest !== 'string' || typeof d.chunks !== 'number' || typeof d.size !== 'number') return null;
  return { ...(d as ObjectDescription), revision: m.seq };
}

/** Every description a writer stored for one object name, oldest first (the bus's messages on its subject left out). */
export async function objectDescriptionsOf(jsm: JetStreamManager, bucket: string, name: string): Promise<ObjectDescription[]> {
  const out: ObjectDescription[] = [];
  for (const m of await keyRevisions(jsm, `OBJ_${bucket}`, `$O.${bucket}.M.${objectMetaToken(name)}`)) {
    const d = writerDescription(m, bucket);
    if (d) out.push(d);
  }
  return out;
}

/**
 * An object's latest writer description (null: none): the subject's last message when a writer stored it (one read,
 * as @nats-io/obj's info), else read past what the bus stored after it.
 */
export async function describeObject(jsm: JetStreamManager, bucket: string, name: string): Promise<ObjectDescription | null> {
  const last = await jsm.streams.getMessage(`OBJ_${bucket}`, { last_by_subj: `$O.${bucket}.M.${objectMetaToken(name)}` });
  if (!last) return null;
  const d = writerDescription(last, bucket);
  if (d) return d;
  return (await objectDescriptionsOf(jsm, bucket, name)).pop() ?? null;
}

/** Every object name that has a description subject in the store (from the stream's subject list: no consumer). */
export async function objectNames(jsm: JetStreamManager, bucket: string): Promise<string[]> {
  const prefix = `$O.${bucket}.M.`;
  const info = await jsm.streams.info(`OBJ_${bucket}`, { subjects_filter: `${prefix}>` });
  const names = Object.keys(info.state.subjects ?? {}).map((s) => {
    const token = s.slice(prefix.length);
    return { token, name: Buffer.from(token.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8') };
  });
  // Only subjects a writer could have made (objectMetaToken of their name): one the bus wrote under another encoding
  // of an existing name would list, and erase, that object twice (review).
  return names.filter((n) => objectMetaToken(n.name) === n.token).map((n) => n.name);
}

const CHUNK = 128 * 1024;

/**
 * Writes an object as @nats-io/obj's putBlob lays it out (chunks on `$O.<bucket>.C.<nuid>`, then the description,
 * SHA-256 digest in base64url), readable by it, but its description marked as a writer's and with no rollup.
 */
export async function putObject(js: JetStreamClient, bucket: string, name: string, bytes: Uint8Array, metadata?: Record<string, string>): Promise<ObjectDescription> {
  const id = nuid.next();
  const sha = createHash('sha256');
  let chunks = 0;
  for (let at = 0; at < bytes.length; at += CHUNK) {
    const chunk = bytes.subarray(at, Math.min(bytes.length, at + CHUNK));
    sha.update(chunk);
    await js.publish(`$O.${bucket}.C.${id}`, chunk);
    chunks++;
  }
  const description = {
    name, options: { max_chunk_size: CHUNK }, ...(metadata ? { metadata } : {}),
    bucket, nuid: id, size: bytes.length, chunks, mtime: new Date().toISOString(), digest: `SHA-256=${sha.digest().toString('base64url')}=`, deleted: false,
  };
  const token = objectMetaToken(name);
  const ack = await js.publish(`$O.${bucket}.M.${token}`, JSON.stringify(description), { headers: kvWriterHeaders(token) });
  return { ...description, revision: ack.seq };
}
