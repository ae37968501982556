import { createHash } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { Objm, StorageType, type ObjectStore } from '@nats-io/obj';
import { nextMatching, nextMatchingOnLeader } from '@runledger/event-log';
import { describeObject, putObject, type ObjectDescription } from '@runledger/messaging';
import type { ArtifactRef } from '@runledger/governance';
import { ARTIFACT_BUCKET, ArtifactStore, decodeRef, encodeRef, StoredArtifact } from './artifact-store';

/**
 * Artifacts in the JetStream Object Store (bucket `rl_artifacts`, object name = artifact_id). The reference
 * is kept in the object's metadata. The Object Store checks its own chunk digest on read; we still verify
 * the bytes against the reference, because an object replaced wholesale carries a consistent digest. Descriptions
 * are read and written by `object-descriptions.ts` (libs/messaging): what the bus stores on an artifact's subject
 * never hides it, and no write rolls a subject up.
 */
export class NatsObjectArtifactStore implements ArtifactStore {
  readonly kind = 'nats-object-store' as const;
  private bucket?: Promise<ObjectStore>;
  private jsm?: Promise<JetStreamManager>;

  constructor(private readonly nc: NatsConnection) {}

  private store(): Promise<ObjectStore> {
    // create() opens the bucket when it exists; memoised so concurrent first calls share one round trip.
    this.bucket ??= new Objm(this.nc).create(ARTIFACT_BUCKET, { storage: StorageType.File }).catch((err) => {
      this.bucket = undefined;
      throw err;
    });
    return this.bucket;
  }

  private manager(): Promise<JetStreamManager> {
    this.jsm ??= jetstreamManager(this.nc).catch((err: unknown) => {
      this.jsm = undefined;
      throw err;
    });
    return this.jsm;
  }

  async putIfAbsent(ref: ArtifactRef, bytes: Uint8Array): Promise<{ ref: ArtifactRef; created: boolean }> {
    await this.store();
    const held = await describeObject(await this.manager(), ARTIFACT_BUCKET, ref.artifact_id);
    if (held && !held.deleted) return { ref: decodeRef(held.metadata?.artifact_ref, ref.artifact_id), created: false };
    await putObject(jetstream(this.nc), ARTIFACT_BUCKET, ref.artifact_id, bytes, { artifact_ref: encodeRef(ref) });
    return { ref, created: true };
  }

  async get(artifactId: string): Promise<StoredArtifact | null> {
    await this.store();
    const info = await describeObject(await this.manager(), ARTIFACT_BUCKET, artifactId);
    if (!info || info.deleted) return null;
    const ref = decodeRef(info.metadata?.artifact_ref, artifactId);
    return { ref, bytes: await this.chunks(info) };
  }

  /**
   * The object's bytes, its chunks read by direct gets: os.getBlob() would create a consumer, which no service may
   * (deploy/nats/permissions.yaml). Chunks that do not match the object's digest read as empty bytes, so the
   * reference check refuses them like any other mismatch.
   */
  private async chunks(info: ObjectDescription): Promise<Uint8Array> {
    const jsm = await this.manager();
    const parts: Uint8Array[] = [];
    const subject = `$O.${ARTIFACT_BUCKET}.C.${info.nuid}`;
    for (let seq = 1, i = 0; i < info.chunks; i++) {
      // Any replica may answer a direct get; one that lags has no chunk yet: the leader answers then.
      const chunk = (await nextMatching(jsm, `OBJ_${ARTIFACT_BUCKET}`, subject, seq)) ?? (await nextMatchingOnLeader(jsm, `OBJ_${ARTIFACT_BUCKET}`, subject, seq));
      if (!chunk) break;
      parts.push(chunk.data);
      seq = chunk.seq + 1;
    }
    const bytes = Buffer.concat(parts);
    return digestMatches(info.digest, bytes) ? bytes : new Uint8Array(0);
  }

  async close(): Promise<void> {
    // The connection belongs to the service runtime.
  }
}

/** Whether `bytes` hash to the Object Store's digest (`SHA-256=` and base64url, padded or not; older clients wrote hex). */
function digestMatches(digest: string, bytes: Uint8Array): boolean {
  if (!digest.startsWith('SHA-256=')) return false;
  const want = digest.slice('SHA-256='.length).replace(/=+$/, '');
  const sha = createHash('sha256').update(bytes).digest();
  return want === sha.toString('base64url') || want.toLowerCase() === sha.toString('hex');
}
