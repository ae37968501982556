import type { NatsConnection } from '@nats-io/transport-node';
import { Objm, StorageType, type ObjectStore } from '@nats-io/obj';
import type { ArtifactRef } from '@runledger/governance';
import { ARTIFACT_BUCKET, ArtifactStore, decodeRef, encodeRef, StoredArtifact } from './artifact-store';

/**
 * Artifacts in the JetStream Object Store (bucket `rl_artifacts`, object name = artifact_id). The reference
 * is kept in the object's metadata. The Object Store checks its own chunk digest on read; we still verify
 * the bytes against the reference, because an object replaced wholesale carries a consistent digest.
 */
export class NatsObjectArtifactStore implements ArtifactStore {
  readonly kind = 'nats-object-store' as const;
  private bucket?: Promise<ObjectStore>;

  constructor(private readonly nc: NatsConnection) {}

  private store(): Promise<ObjectStore> {
    // create() opens the bucket when it exists; memoised so concurrent first calls share one round trip.
    this.bucket ??= new Objm(this.nc).create(ARTIFACT_BUCKET, { storage: StorageType.File }).catch((err) => {
      this.bucket = undefined;
      throw err;
    });
    return this.bucket;
  }

  async putIfAbsent(ref: ArtifactRef, bytes: Uint8Array): Promise<{ ref: ArtifactRef; created: boolean }> {
    const os = await this.store();
    const held = await os.info(ref.artifact_id);
    if (held && !held.deleted) return { ref: decodeRef(held.metadata?.artifact_ref, ref.artifact_id), created: false };
    await os.putBlob({ name: ref.artifact_id, metadata: { artifact_ref: encodeRef(ref) } }, bytes);
    return { ref, created: true };
  }

  async get(artifactId: string): Promise<StoredArtifact | null> {
    const os = await this.store();
    const info = await os.info(artifactId);
    if (!info || info.deleted) return null;
    const ref = decodeRef(info.metadata?.artifact_ref, artifactId);
    let bytes: Uint8Array | null;
    try {
      bytes = await os.getBlob(artifactId);
    } catch {
      // The Object Store's own digest check failed: chunks no longer match the object. Report empty
      // bytes so the reference check refuses them like any other mismatch.
      bytes = new Uint8Array(0);
    }
    return bytes ? { ref, bytes } : null;
  }

  async close(): Promise<void> {
    // The connection belongs to the service runtime.
  }
}
