import { AppError } from '@runledger/kernel';
import { verifyArtifactContent } from '../artifacts/artifact-ref';
import { sha256Hex } from '../hashing/hashes';
import { checkSchema } from '../schemas/validators';
import { MANIFEST_PATH, manifestBytes, type ExportManifest } from './manifest';
import { readTar, tarArchive, TarError } from './tar';

/**
 * Packs a bundle: manifest.json first, then each manifest entry in manifest order. Every artifact's
 * bytes (looked up by artifact_id) are checked against the manifest first, so a bundle can never
 * contain bytes its manifest does not vouch for. Throws AppError `ARTIFACT.NOT_FOUND` or
 * `ARTIFACT.HASH_MISMATCH` (size or hash), naming the entries.
 */
export function assembleBundle(manifest: ExportManifest, contents: ReadonlyMap<string, Uint8Array>): Uint8Array {
  const notFound: string[] = [];
  const mismatched: string[] = [];
  const files = manifest.entries.map((entry) => {
    const bytes = contents.get(entry.artifact_id);
    if (!bytes) notFound.push(entry.path);
    else if (!verifyArtifactContent(entry, bytes).ok) mismatched.push(entry.path);
    return { path: entry.path, bytes: bytes ?? new Uint8Array(0) };
  });
  if (notFound.length > 0) throw new AppError('ARTIFACT.NOT_FOUND', 'Some bundled artifacts were not supplied.', notFound);
  if (mismatched.length > 0) throw new AppError('ARTIFACT.HASH_MISMATCH', undefined, mismatched);
  return tarArchive([{ path: MANIFEST_PATH, bytes: manifestBytes(manifest) }, ...files]);
}

export type BundleVerification =
  | { ok: true; manifest: ExportManifest; manifest_sha256: string }
  | { ok: false; problems: string[] };

/**
 * Checks a bundle end to end, as an auditor receiving it would: it is a readable ustar archive,
 * manifest.json comes first and is a valid manifest, and the archive holds exactly the manifest's
 * entries, each with the size and sha256 the manifest states.
 */
export function verifyBundle(archive: Uint8Array): BundleVerification {
  let files;
  try {
    files = readTar(archive);
  } catch (err) {
    if (err instanceof TarError) return { ok: false, problems: [`archive: ${err.message}`] };
    throw err;
  }
  if (files[0]?.path !== MANIFEST_PATH) return { ok: false, problems: [`${MANIFEST_PATH} is not the first entry`] };
  let manifest: unknown;
  try {
    manifest = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(files[0].bytes));
  } catch {
    return { ok: false, problems: [`${MANIFEST_PATH} is not JSON`] };
  }
  const schema = checkSchema('export_manifest', manifest);
  if (!schema.ok) return { ok: false, problems: schema.errors.map((e) => `${MANIFEST_PATH}: ${e}`) };
  const valid = manifest as ExportManifest;

  const problems: string[] = [];
  const byPath = new Map(files.slice(1).map((f) => [f.path, f.bytes]));
  for (const entry of valid.entries) {
    const bytes = byPath.get(entry.path);
    byPath.delete(entry.path);
    if (!bytes) problems.push(`${entry.path}: listed in the manifest but missing from the archive`);
    else {
      const check = verifyArtifactContent(entry, bytes);
      if (!check.ok) problems.push(`${entry.path}: ${check.code}`);
    }
  }
  for (const path of byPath.keys()) problems.push(`${path}: in the archive but not in the manifest`);
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, manifest: valid, manifest_sha256: sha256Hex(files[0].bytes) };
}
