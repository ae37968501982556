/** One regular file of an archive. */
export interface TarEntry {
  path: string;
  bytes: Uint8Array;
}

/** The archive cannot be written or read (bad path, corrupt header, unsupported entry type). */
export class TarError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TarError';
  }
}

const BLOCK = 512;
const NAME_MAX = 100;
const PREFIX_MAX = 155;
const MAX_SIZE = 8 ** 11 - 1; // the largest size an 11-digit octal field holds (8 GiB − 1)
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Why a path cannot go into an archive, or undefined when it can: relative, `/`-separated, no empty,
 * `.` or `..` segments (so extraction never escapes its directory), no NUL, and short enough for
 * ustar's name (100 bytes) plus prefix (155 bytes).
 */
export function tarPathProblem(path: string): string | undefined {
  if (path === '') return 'empty path';
  if (path.includes('\0')) return 'path contains NUL';
  if (path.startsWith('/')) return 'absolute path';
  if (path.split('/').some((s) => s === '' || s === '.' || s === '..')) return 'path has an empty, "." or ".." segment';
  return splitPath(encoder.encode(path)) ? undefined : 'path too long for ustar';
}

/**
 * A POSIX ustar archive of regular files, in the given order: mode 0644, uid/gid 0, no owner names,
 * mtime 0, so the same entries always give the same bytes (reproducible bundles). Ends with two
 * zero blocks. Throws {@link TarError} on an invalid or repeated path.
 */
export function tarArchive(entries: readonly TarEntry[]): Uint8Array {
  const seen = new Set<string>();
  let total = 2 * BLOCK;
  for (const entry of entries) {
    const problem = tarPathProblem(entry.path);
    if (problem) throw new TarError(`${problem}: ${JSON.stringify(entry.path.slice(0, 120))}`);
    if (seen.has(entry.path)) throw new TarError(`duplicate path: ${JSON.stringify(entry.path.slice(0, 120))}`);
    if (entry.bytes.length > MAX_SIZE) throw new TarError(`entry too large for ustar: ${entry.path}`);
    seen.add(entry.path);
    total += BLOCK + padded(entry.bytes.length);
  }
  const out = new Uint8Array(total); // zero-filled: padding and the end-of-archive blocks come free
  let offset = 0;
  for (const entry of entries) {
    out.set(header(entry.path, entry.bytes.length), offset);
    out.set(entry.bytes, offset + BLOCK);
    offset += BLOCK + padded(entry.bytes.length);
  }
  return out;
}

/**
 * Reads a ustar archive of regular files (directory entries are skipped). Verifies every header
 * checksum and the `ustar` magic; throws {@link TarError} on corruption, truncation, or any other
 * entry type (links, devices, pax/GNU extensions), which our bundles never contain.
 */
export function readTar(bytes: Uint8Array): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  while (offset + BLOCK <= bytes.length) {
    const block = bytes.subarray(offset, offset + BLOCK);
    if (block.every((b) => b === 0)) return entries; // end-of-archive marker
    if (ascii(block, 257, 5) !== 'ustar') throw new TarError(`not a ustar header at byte ${offset}`);
    if (octal(block, 148, 8) !== checksum(block)) throw new TarError(`header checksum mismatch at byte ${offset}`);
    const size = octal(block, 124, 12);
    const type = String.fromCharCode(block[156]);
    const name = text(block, 0, NAME_MAX);
    const prefix = text(block, 345, PREFIX_MAX);
    const path = prefix ? `${prefix}/${name}` : name;
    const start = offset + BLOCK;
    if (start + size > bytes.length) throw new TarError(`truncated entry ${JSON.stringify(path)}`);
    if (type === '0' || type === '\0') entries.push({ path, bytes: bytes.slice(start, start + size) });
    else if (type !== '5') throw new TarError(`unsupported entry type ${JSON.stringify(type)} for ${JSON.stringify(path)}`);
    offset = start + padded(size);
  }
  throw new TarError('archive ends without the end-of-archive blocks');
}

function header(path: string, size: number): Uint8Array {
  const block = new Uint8Array(BLOCK);
  const split = splitPath(encoder.encode(path))!; // validated by tarPathProblem
  block.set(split.name, 0);
  writeOctal(block, 100, 8, 0o644); // mode
  writeOctal(block, 108, 8, 0); // uid
  writeOctal(block, 116, 8, 0); // gid
  writeOctal(block, 124, 12, size);
  writeOctal(block, 136, 12, 0); // mtime: fixed for reproducible archives
  block.fill(0x20, 148, 156); // checksum is computed with its own field as spaces
  block[156] = 0x30; // typeflag '0': regular file
  block.set(encoder.encode('ustar\u000000'), 257); // magic "ustar\0" + version "00"
  writeOctal(block, 329, 8, 0); // devmajor
  writeOctal(block, 337, 8, 0); // devminor
  block.set(split.prefix, 345);
  const sum = checksum(block);
  block.set(encoder.encode(sum.toString(8).padStart(6, '0') + '\u0000 '), 148);
  return block;
}

// ustar stores long paths as prefix + "/" + name; the split must fall on a "/".
function splitPath(path: Uint8Array): { name: Uint8Array; prefix: Uint8Array } | undefined {
  if (path.length <= NAME_MAX) return { name: path, prefix: new Uint8Array(0) };
  for (let i = path.length - 1; i > 0; i--) {
    if (path[i] !== 0x2f) continue;
    const prefix = path.subarray(0, i);
    const name = path.subarray(i + 1);
    if (name.length > NAME_MAX) return undefined;
    if (prefix.length <= PREFIX_MAX && name.length > 0) return { name, prefix };
  }
  return undefined;
}

function checksum(block: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i];
  return sum;
}

function writeOctal(block: Uint8Array, at: number, width: number, value: number): void {
  block.set(encoder.encode(value.toString(8).padStart(width - 1, '0') + '\u0000'), at);
}

function octal(block: Uint8Array, at: number, width: number): number {
  const field = ascii(block, at, width).replace(/[\0 ]+$/, '').replace(/^ +/, '');
  if (!/^[0-7]+$/.test(field)) throw new TarError('malformed numeric field in header');
  return parseInt(field, 8);
}

function ascii(block: Uint8Array, at: number, width: number): string {
  return String.fromCharCode(...block.subarray(at, at + width));
}

function text(block: Uint8Array, at: number, width: number): string {
  const field = block.subarray(at, at + width);
  const end = field.indexOf(0);
  try {
    return decoder.decode(end === -1 ? field : field.subarray(0, end));
  } catch {
    throw new TarError('header path is not UTF-8');
  }
}

function padded(size: number): number {
  return Math.ceil(size / BLOCK) * BLOCK;
}
