import type { ArtifactRef } from '@runledger/governance';

/** Injection token of the {@link ArtifactStore}. */
export const ARTIFACT_STORE = Symbol('ARTIFACT_STORE');
/** Object Store bucket / GridFS bucket holding every artifact; the object name is the artifact_id. */
export const ARTIFACT_BUCKET = 'rl_artifacts';

export interface StoredArtifact {
  /** The reference recorded when the bytes were first stored. */
  ref: ArtifactRef;
  /** The bytes as read back; callers verify them against `ref` (storage is not trusted). */
  bytes: Uint8Array;
}

/**
 * The storage port for artifact bytes: JetStream Object Store by default, MongoDB GridFS with MONGO_URL.
 * Artifacts are immutable and content-addressed, so the only write is "store if absent"; the reference
 * travels with the bytes (object metadata) so a read needs no second store.
 */
export interface ArtifactStore {
  readonly kind: 'nats-object-store' | 'gridfs';
  /** Stores the bytes under `ref.artifact_id` unless that id is already held; returns the reference held. */
  putIfAbsent(ref: ArtifactRef, bytes: Uint8Array): Promise<{ ref: ArtifactRef; created: boolean }>;
  /** The artifact, or null when no such id is stored. */
  get(artifactId: string): Promise<StoredArtifact | null>;
  close(): Promise<void>;
}

/** The reference is stored as JSON in the object's metadata; anything else there means a foreign object. */
export function encodeRef(ref: ArtifactRef): string {
  return JSON.stringify(ref);
}

export function decodeRef(raw: unknown, artifactId: string): ArtifactRef {
  const ref = typeof raw === 'string' ? (JSON.parse(raw) as ArtifactRef) : (raw as ArtifactRef);
  if (!ref || typeof ref !== 'object' || ref.artifact_id !== artifactId || typeof ref.sha256 !== 'string' || typeof ref.size_bytes !== 'number') {
    throw new Error(`object ${artifactId} in ${ARTIFACT_BUCKET} carries no valid artifact reference`);
  }
  return ref;
}
