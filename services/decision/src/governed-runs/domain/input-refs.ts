import type { ArtifactRef } from '@runledger/governance';

/** The fields that say what an artifact is; `name` is a label, never identity (artifact_ref.schema.json). */
const IDENTITY = ['sha256', 'size_bytes', 'media_type', 'kind', 'case_id'] as const;
const BYTES: ReadonlySet<string> = new Set(['sha256', 'size_bytes']);

/**
 * Why an input reference is not the artifact the store recorded under its id (`stored`: the first writer's
 * ArtifactStored; undefined, nothing is stored there), or null. A run's behaviours pick their inputs by kind and
 * trust the case, so every identity field must be the store's, not the sender's: a relabelled kind would turn an
 * intake form into a candidate for promotion. Bytes that differ (sha256, size_bytes) are ARTIFACT.HASH_MISMATCH; a
 * reference whose bytes match but whose kind or media type the store did not record is INVALID_INPUT. An artifact the
 * store holds for another case than the reference states is answered as one not stored, naming no field: the caller
 * learns nothing of another case's artifacts (review finding: which fields differed told their metadata).
 */
export function inputRefProblem(given: ArtifactRef, stored: ArtifactRef | undefined): { code: 'ARTIFACT.NOT_FOUND' | 'ARTIFACT.HASH_MISMATCH' | 'INVALID_INPUT'; reason: string } | null {
  if (!stored || stored.case_id !== given.case_id) return { code: 'ARTIFACT.NOT_FOUND', reason: `Input artifact ${given.artifact_id} is not in the artifact store.` };
  const differ = IDENTITY.filter((field) => given[field] !== stored[field]);
  if (!differ.length) return null;
  const reason = `Input artifact ${given.artifact_id} is not the artifact stored under that id: its ${differ.join(', ')} ${differ.length > 1 ? 'differ' : 'differs'} from the store's reference.`;
  return { code: differ.some((field) => BYTES.has(field)) ? 'ARTIFACT.HASH_MISMATCH' : 'INVALID_INPUT', reason };
}
