import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '@runledger/kernel';
import {
  assembleBundle,
  buildManifest,
  checkSchema,
  makeArtifactRef,
  manifestBytes,
  readTar,
  sha256Hex,
  tarArchive,
  verifyBundle,
  type ArtifactRef,
} from '../index';

const utf8 = (s: string) => new TextEncoder().encode(s);
const files: Record<string, Uint8Array> = {
  'art-t': utf8('Client: the lease began on 1 May.\n'),
  'art-c': utf8('{"coa":["breach of quiet enjoyment"]}'),
  'art-p': utf8('shared playbook v3'),
};
const refs: Record<string, ArtifactRef> = {
  'art-t': makeArtifactRef({ artifact_id: 'art-t', kind: 'transcript', media_type: 'text/plain', case_id: 'case-1', bytes: files['art-t'] }),
  'art-c': makeArtifactRef({ artifact_id: 'art-c', kind: 'coa_map', media_type: 'application/json', case_id: 'case-1', bytes: files['art-c'] }),
  'art-p': makeArtifactRef({ artifact_id: 'art-p', kind: 'promoted_shared_playbook', media_type: 'text/plain', bytes: files['art-p'] }),
};
const input = {
  bundle_id: 'bundle-1',
  case_id: 'case-1',
  created_at: '2026-11-22T10:00:00Z',
  artifacts: [
    { ref: refs['art-t'], path: 'transcripts/interview-1.txt' },
    { ref: refs['art-c'], path: 'maps/coa.json' },
    { ref: refs['art-p'], path: 'shared/playbook.txt' },
  ],
};
const contents = new Map(Object.entries(files));
function appError(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

describe('§4.6 export manifest', () => {
  test('§4.6 export_manifest: lists every artifact with its sha256 and size, sorted by path, and fits the schema', () => {
    const manifest = buildManifest(input);
    expect(manifest.entries.map((e) => [e.path, e.sha256, e.size_bytes])).toEqual([
      ['maps/coa.json', sha256Hex(files['art-c']), files['art-c'].length],
      ['shared/playbook.txt', sha256Hex(files['art-p']), files['art-p'].length],
      ['transcripts/interview-1.txt', sha256Hex(files['art-t']), files['art-t'].length],
    ]);
    expect(checkSchema('export_manifest', manifest)).toEqual({ ok: true });
    // Input order does not matter: same artifacts, same manifest bytes.
    expect(manifestBytes(buildManifest({ ...input, artifacts: [...input.artifacts].reverse() }))).toEqual(manifestBytes(manifest));
  });

  test('§4.6 case isolation: an artifact of another case cannot be exported', () => {
    const foreign = { ref: { ...refs['art-t'], artifact_id: 'art-x', case_id: 'case-2' }, path: 'x.txt' };
    const err = appError(() => buildManifest({ ...input, artifacts: [...input.artifacts, foreign] }));
    expect(err.code).toBe('CASE.CROSS_CASE_DENIED');
    expect(err.details).toEqual(['artifact #4 (art-x) belongs to another case']);
  });

  test('§4.6 export_manifest: invalid refs, unsafe or duplicate paths and a bad time are all reported', () => {
    const err = appError(() =>
      buildManifest({
        ...input,
        created_at: 'yesterday',
        artifacts: [
          { ref: { ...refs['art-t'], sha256: 'nope' }, path: '../../etc/passwd' },
          { ref: refs['art-c'], path: 'manifest.json' },
          { ref: refs['art-p'], path: 'maps/coa.json' },
          { ref: refs['art-p'], path: 'maps/coa.json' },
        ],
      }),
    );
    expect(err.code).toBe('REQUEST.INVALID');
    expect(err.details).toEqual([
      'artifact #1: /sha256: must match pattern "^[0-9a-f]{64}$"',
      'artifact #1: path has an empty, "." or ".." segment',
      'artifact #2: path manifest.json is reserved for the manifest',
      'artifact #4: duplicate path maps/coa.json',
    ]);
    expect(appError(() => buildManifest({ ...input, created_at: 'yesterday' })).details).toEqual(['/created_at: must match format "date-time"']);
  });
});

describe('§4.6 export bundle', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'runledger-bundle-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('§7.5 export: the bundle holds manifest.json first, then every artifact, and verifies end to end', () => {
    const manifest = buildManifest(input);
    const archive = assembleBundle(manifest, contents);
    const file = join(dir, 'bundle.tar');
    writeFileSync(file, archive);
    expect(execFileSync('tar', ['-tf', file], { encoding: 'utf8' }).trim().split('\n')).toEqual([
      'manifest.json', 'maps/coa.json', 'shared/playbook.txt', 'transcripts/interview-1.txt',
    ]);
    expect(verifyBundle(archive)).toEqual({ ok: true, manifest, manifest_sha256: sha256Hex(manifestBytes(manifest)) });
  });

  test('§4.6 export: bytes that do not match the manifest are never packed', () => {
    const manifest = buildManifest(input);
    const wrong = new Map(contents).set('art-c', utf8('{"coa":["something else entirely"]}'));
    const err = appError(() => assembleBundle(manifest, wrong));
    expect(err).toMatchObject({ code: 'ARTIFACT.HASH_MISMATCH', details: ['maps/coa.json'] });
    const missing = new Map(contents);
    missing.delete('art-t');
    expect(appError(() => assembleBundle(manifest, missing))).toMatchObject({ code: 'ARTIFACT.NOT_FOUND', details: ['transcripts/interview-1.txt'] });
  });

  test('§4.6 export: a tampered, padded or stripped bundle fails verification with the entry named', () => {
    const manifest = buildManifest(input);
    const entries = readTar(assembleBundle(manifest, contents));
    const swapped = entries.map((e) => (e.path === 'maps/coa.json' ? { ...e, bytes: utf8('{"coa":["breach of quiet enjoymenT"]}') } : e));
    expect(verifyBundle(tarArchive(swapped))).toEqual({ ok: false, problems: ['maps/coa.json: ARTIFACT.HASH_MISMATCH'] });
    const extra = [...entries, { path: 'smuggled.txt', bytes: utf8('x') }];
    expect(verifyBundle(tarArchive(extra))).toEqual({ ok: false, problems: ['smuggled.txt: in the archive but not in the manifest'] });
    const stripped = entries.filter((e) => e.path !== 'shared/playbook.txt');
    expect(verifyBundle(tarArchive(stripped))).toEqual({ ok: false, problems: ['shared/playbook.txt: listed in the manifest but missing from the archive'] });
    expect(verifyBundle(tarArchive(entries.slice(1)))).toEqual({ ok: false, problems: ['manifest.json is not the first entry'] });
    expect(verifyBundle(utf8('not a tar'))).toMatchObject({ ok: false, problems: [expect.stringMatching(/^archive: /)] });
  });
});
