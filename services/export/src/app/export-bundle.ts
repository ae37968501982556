import type { ArtifactRef } from '@runledger/contracts';
import { assembleBundle, buildManifest, manifestBytes, sha256Hex, type ChainCheckpoint, type ExportManifest } from '@runledger/governance';
import type { FetchedArtifact } from '@runledger/service-clients';

// Pure: the bytes of an export, decided from the run and its verified inputs only, so a re-run after a
// crash produces byte-identical artifacts (same content-addressed ids).

const EXTENSIONS: Record<string, string> = {
  'application/json': '.json',
  'application/pdf': '.pdf',
  'application/x-tar': '.tar',
  'text/plain': '.txt',
  'text/markdown': '.md',
  'text/csv': '.csv',
};

/** `<kind>/<artifact_id><ext>`: unique (ids are), safe for ustar, and splits at the slash when long. */
export function bundlePath(ref: Pick<ArtifactRef, 'kind' | 'artifact_id' | 'media_type'>): string {
  const base = ref.media_type.split(';')[0].trim();
  return `${ref.kind}/${ref.artifact_id}${EXTENSIONS[base] ?? '.bin'}`;
}

export interface AssembledExport {
  manifest: ExportManifest;
  manifest_bytes: Uint8Array;
  manifest_sha256: string;
  archive: Uint8Array;
  bundle_sha256: string;
}

/**
 * Manifest (every artifact with its sha256, sorted by path) and ustar archive (manifest.json first).
 * assembleBundle re-verifies every artifact's bytes against the manifest before packing them.
 */
export function assembleExport(input: { bundle_id: string; case_id: string; created_at: string; artifacts: readonly FetchedArtifact[]; audit_head?: ChainCheckpoint }): AssembledExport {
  const manifest = buildManifest({
    bundle_id: input.bundle_id, case_id: input.case_id, created_at: input.created_at, audit_head: input.audit_head,
    artifacts: input.artifacts.map((a) => ({ ref: a.ref, path: bundlePath(a.ref) })),
  });
  const archive = assembleBundle(manifest, new Map(input.artifacts.map((a) => [a.ref.artifact_id, a.bytes])));
  const bytes = manifestBytes(manifest);
  return { manifest, manifest_bytes: bytes, manifest_sha256: sha256Hex(bytes), archive, bundle_sha256: sha256Hex(archive) };
}

/** The export receipt (JSON, fixed key order, so equal exports give equal bytes). */
export function receiptBytes(r: { export_id: string; case_id: string; bundle_sha256: string; manifest_sha256: string; artifact_count: number; created_at: string }): Uint8Array {
  const receipt = {
    export_id: r.export_id, case_id: r.case_id, bundle_sha256: r.bundle_sha256, manifest_sha256: r.manifest_sha256,
    artifact_count: r.artifact_count, created_at: r.created_at,
  };
  return new TextEncoder().encode(`${JSON.stringify(receipt, null, 2)}\n`);
}
