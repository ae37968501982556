import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTar, tarArchive, TarError, tarPathProblem } from '../index';

const utf8 = (s: string) => new TextEncoder().encode(s);
const longDir = `${'d'.repeat(60)}/${'e'.repeat(60)}`;
const entries = [
  { path: 'manifest.json', bytes: utf8('{"manifest_version":1}') },
  { path: 'transcripts/interview-1.txt', bytes: utf8('Client: the lease began on 1 May.\n') },
  { path: 'empty.bin', bytes: new Uint8Array(0) },
  { path: 'exactly-512.bin', bytes: new Uint8Array(512).fill(7) },
  { path: `${longDir}/${'f'.repeat(90)}.json`, bytes: utf8('{"long":"path"}') }, // > 100 bytes: uses the ustar prefix
  { path: 'notes/café.md', bytes: utf8('ünïcödé name') },
];

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'runledger-tar-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('§4.6 export bundle packaging (POSIX ustar)', () => {
  test('§4.6 export: GNU tar lists every entry of the archive, in order', () => {
    const file = join(dir, 'bundle.tar');
    writeFileSync(file, tarArchive(entries));
    const listed = execFileSync('tar', ['-tf', file], { encoding: 'utf8' }).trim().split('\n');
    expect(listed).toEqual(entries.map((e) => e.path));
  });

  test('§4.6 export: GNU tar extracts exactly the bytes that went in, with mode 0644 and mtime 0', () => {
    const file = join(dir, 'extract.tar');
    const out = join(dir, 'out');
    writeFileSync(file, tarArchive(entries));
    execFileSync('mkdir', ['-p', out]);
    execFileSync('tar', ['-xf', file, '-C', out]);
    for (const e of entries) expect(new Uint8Array(readFileSync(join(out, e.path)))).toEqual(e.bytes);
    const verbose = execFileSync('tar', ['--numeric-owner', '--utc', '-tvf', file], { encoding: 'utf8' }).split('\n')[0];
    expect(verbose).toMatch(/^-rw-r--r-- 0\/0 +22 1970-01-01 00:00 manifest\.json$/);
  });

  test('§4.6 export: the archive is reproducible — same entries, same bytes', () => {
    expect(tarArchive(entries)).toEqual(tarArchive(entries.map((e) => ({ ...e, bytes: e.bytes.slice() }))));
  });

  test('§4.6 export: blocks are 512 bytes and the archive ends with two zero blocks', () => {
    const archive = tarArchive(entries.slice(0, 2));
    expect(archive.length % 512).toBe(0);
    expect(archive.length).toBe(512 + 512 + 512 + 512 + 1024);
    expect(archive.subarray(archive.length - 1024).every((b) => b === 0)).toBe(true);
  });

  test('§4.6 export: readTar reads back what tarArchive wrote, and what GNU tar wrote', () => {
    expect(readTar(tarArchive(entries))).toEqual(entries);
    const src = join(dir, 'gnu');
    execFileSync('mkdir', ['-p', join(src, 'sub')]);
    writeFileSync(join(src, 'sub', 'a.txt'), 'from GNU tar');
    const gnu = join(dir, 'gnu.tar');
    execFileSync('tar', ['--format=ustar', '-cf', gnu, '-C', src, 'sub/a.txt']);
    expect(readTar(new Uint8Array(readFileSync(gnu)))).toEqual([{ path: 'sub/a.txt', bytes: utf8('from GNU tar') }]);
  });

  test('§4.6 export: a corrupted header, truncation or missing end blocks are refused', () => {
    const archive = tarArchive(entries.slice(0, 2));
    const flipped = archive.slice();
    flipped[5] ^= 1; // inside the first file name
    expect(() => readTar(flipped)).toThrow('header checksum mismatch at byte 0');
    expect(() => readTar(archive.subarray(0, 512 + 100))).toThrow(TarError);
    expect(() => readTar(archive.subarray(0, archive.length - 1024))).toThrow('archive ends without the end-of-archive blocks');
  });

  test.each([
    ['/etc/passwd', 'absolute path'],
    ['../escape.txt', 'path has an empty, "." or ".." segment'],
    ['a//b', 'path has an empty, "." or ".." segment'],
    ['', 'empty path'],
    ['x'.repeat(101), 'path too long for ustar'],
  ])('§4.6 export: path %j is refused (%s)', (path, problem) => {
    expect(tarPathProblem(path)).toBe(problem);
    expect(() => tarArchive([{ path, bytes: new Uint8Array(1) }])).toThrow(TarError);
  });

  test('§4.6 export: a path may not appear twice', () => {
    expect(() => tarArchive([entries[1], entries[1]])).toThrow('duplicate path');
  });
});
