import { AppError } from '@runledger/kernel';
import { validateArtifactRef, type ArtifactRef } from '../artifacts/artifact-ref';
import type { ChainCheckpoint } from '../audit/anchored-chain';
import { canonicalJson } from '../hashing/canonical-json';
import { checkSchema } from '../schemas/validators';
import { tarPathProblem } from './tar';

/** Where the manifest sits in every bundle: the first entry. Artifact paths may not use it. */
export const MANIFEST_PATH = 'manifest.json';

/** One bundled artifact: its path in the archive and the identity of its bytes. */
export interface ExportManifestEntry {
  path: string;
  artifact_id: string;
  kind: string;
  media_type: string;
  size_bytes: number;
  sha256: string;
}

/** The manifest.json of an export bundle (export_bundle.schema.json#/definitions/manifest). */
export interface ExportManifest {
  manifest_version: 1;
  bundle_id: string;
  case_id: string;
  created_at: string;
  /** Sorted by path, so the same artifacts always give the same manifest. */
  entries: ExportManifestEntry[];
  /** The signed head of the audit chain the export was made under (verifiers check the chain reaches it). */
  audit_head?: ChainCheckpoint;
}

export interface BuildManifestInput {
  bundle_id: string;
  case_id: string;
  artifacts: ReadonlyArray<{ ref: ArtifactRef; path: string }>;
  /** ISO 8601 time, supplied by the caller (the domain reads no clock). */
  created_at: string;
  audit_head?: ChainCheckpoint;
}

/**
 * §4.6 export manifest: every artifact with its sha256 and size, sorted by path.
 * Throws AppError `CASE.CROSS_CASE_DENIED` if an artifact belongs to another case, and
 * `REQUEST.INVALID` (with every problem in `details`) for invalid refs, paths or fields.
 */
export function buildManifest(input: BuildManifestInput): ExportManifest {
  const problems: string[] = [];
  const foreign: string[] = [];
  const paths = new Set<string>();
  input.artifacts.forEach(({ ref, path }, i) => {
    const at = `artifact #${i + 1}`;
    const check = validateArtifactRef(ref);
    if (!check.ok) problems.push(...check.errors.map((e) => `${at}: ${e}`));
    const pathProblem = tarPathProblem(path);
    if (pathProblem) problems.push(`${at}: ${pathProblem}`);
    else if (path === MANIFEST_PATH) problems.push(`${at}: path ${MANIFEST_PATH} is reserved for the manifest`);
    else if (paths.has(path)) problems.push(`${at}: duplicate path ${path}`);
    paths.add(path);
    // Shared-plane artifacts (no case_id) may be included; another case's may not.
    if (ref.case_id !== undefined && ref.case_id !== input.case_id) foreign.push(`${at} (${ref.artifact_id}) belongs to another case`);
  });
  if (foreign.length > 0) throw new AppError('CASE.CROSS_CASE_DENIED', 'An export may only include artifacts of its own case.', foreign);

  const manifest: ExportManifest = {
    manifest_version: 1,
    bundle_id: input.bundle_id,
    case_id: input.case_id,
    created_at: input.created_at,
    entries: input.artifacts
      .map(({ ref, path }) => ({ path, artifact_id: ref.artifact_id, kind: ref.kind, media_type: ref.media_type, size_bytes: ref.size_bytes, sha256: ref.sha256 }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    ...(input.audit_head ? { audit_head: input.audit_head } : {}),
  };
  if (problems.length === 0) {
    const schema = checkSchema('export_manifest', manifest);
    if (!schema.ok) problems.push(...schema.errors);
  }
  if (problems.length > 0) throw new AppError('REQUEST.INVALID', 'The export manifest is not valid.', problems);
  return manifest;
}

/** The bytes of manifest.json: canonical JSON, so `manifest_sha256` is reproducible from the manifest alone. */
export function manifestBytes(manifest: ExportManifest): Uint8Array {
  return new TextEncoder().encode(canonicalJson(manifest));
}
