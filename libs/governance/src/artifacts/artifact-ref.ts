import type { ArtifactRef } from '@runledger/contracts';
import { sha256Hex } from '@runledger/kernel';
import { checkSchema } from '../schemas/validators';

/**
 * The SSOT binding of one immutable artifact (proto-contracts/schemas/governance/artifact_ref.schema.json), the type
 * generated from that schema: `sha256` and `size_bytes` bind the reference to exactly one byte sequence.
 */
export type { ArtifactRef };

/** Schema check of an artifact_ref; on success the value is typed. */
export function validateArtifactRef(value: unknown): { ok: true; value: ArtifactRef } | { ok: false; errors: string[] } {
  const result = checkSchema('artifact_ref', value);
  return result.ok ? { ok: true, value: value as ArtifactRef } : result;
}

/** Why stored bytes do not belong to a reference. */
export type ArtifactContentMismatch =
  | { ok: false; code: 'ARTIFACT.SIZE_MISMATCH'; expected_size_bytes: number; actual_size_bytes: number }
  | { ok: false; code: 'ARTIFACT.HASH_MISMATCH'; expected_sha256: string; actual_sha256: string };

/**
 * Checks that bytes read back from storage are the ones the reference names.
 * The size is compared first: it is free and catches truncation without hashing.
 */
export function verifyArtifactContent(ref: Pick<ArtifactRef, 'sha256' | 'size_bytes'>, bytes: Uint8Array): { ok: true } | ArtifactContentMismatch {
  if (bytes.length !== ref.size_bytes) {
    return { ok: false, code: 'ARTIFACT.SIZE_MISMATCH', expected_size_bytes: ref.size_bytes, actual_size_bytes: bytes.length };
  }
  const actual = sha256Hex(bytes);
  if (actual !== ref.sha256) {
    return { ok: false, code: 'ARTIFACT.HASH_MISMATCH', expected_sha256: ref.sha256, actual_sha256: actual };
  }
  return { ok: true };
}

/** Builds the reference for bytes about to be stored: sha256 and size are computed, never supplied. */
export function makeArtifactRef(input: Omit<ArtifactRef, 'sha256' | 'size_bytes'> & { bytes: Uint8Array }): ArtifactRef {
  const { bytes, ...rest } = input;
  return { ...rest, sha256: sha256Hex(bytes), size_bytes: bytes.length };
}
