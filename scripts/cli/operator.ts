/**
 * What every operator command shares: flag parsing, one connection, request/reply with the Rl-Status
 * convention decoded, and the exit codes (0 ok, 1 the answer is bad news — a difference, a broken chain,
 * 2 usage, 3 the stack cannot be reached or refused).
 */
import { accessSync, closeSync, constants, openSync, statSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { decodeReply, encodeJson } from '../../libs/messaging/src/codec';
import { isUuid } from '../../libs/kernel/src/ids';
import { printableLines, terminalJson } from './format';
import { asRefusal, checkConnectionSettings, CliConnectionFlags, connectCli, LocalIdentity, ConnectionRefused, ConnectionSettingInvalid, ConnectionUsageError, parseConnectionFlags, unansweredRequest } from './connection';

export class CliError extends Error {
  constructor(message: string, readonly exitCode: number) {
    super(message);
  }
}

export interface ParsedArgs {
  conn: CliConnectionFlags;
  positional: string[];
  flags: Map<string, string | true>;
}

/**
 * Splits arguments into connection flags, `--name value` / `--name=value` options (only the names in
 * `valued` take a value) and boolean switches (the names in `switches`); anything else is a usage error, and so is a
 * connection setting that names nothing usable (a malformed server URL, a credentials file or context that does not
 * exist): every operator command's arguments are checked here and in the checks below, before it connects. A command
 * that may not connect at all (`audit verify --file`: an auditor's offline check) passes `connects: false` and calls
 * checkConnection itself only when it will connect, so a stale NATS_CONTEXT or NATS_CREDS does not refuse it.
 */
export function parseArgs(args: string[], spec: { valued: readonly string[]; switches: readonly string[] }, usage: string, { connects = true } = {}): ParsedArgs {
  let parsed: { flags: CliConnectionFlags; rest: string[] };
  try {
    parsed = parseConnectionFlags(args);
  } catch (err) {
    if (err instanceof ConnectionUsageError) throw new CliError(`${err.message}\n${usage}`, 2);
    throw err;
  }
  if (connects) checkConnection(parsed.flags, usage);
  const flags = new Map<string, string | true>();
  const positional: string[] = [];
  const rest = parsed.rest;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2);
    if (spec.switches.includes(name) && inline === undefined) flags.set(name, true);
    else if (spec.valued.includes(name)) {
      const value = inline ?? rest[++i];
      // `--user --case x`: the next option of this command is not --user's value (as connection flags read it); any
      // other text is, also one that starts with `--` (`--reason "--force"`).
      const nextIsOption = inline === undefined && value !== undefined && /^--[^=]/.test(value) && isOptionOf(spec, value.slice(2).split('=')[0]);
      if (value === undefined || value === '' || nextIsOption) throw new CliError(`--${name} needs a value\n${usage}`, 2);
      flags.set(name, value);
    } else throw new CliError(`unknown option --${name}\n${usage}`, 2);
  }
  return { conn: parsed.flags, positional, flags };
}

/**
 * The connection settings (flags, NATS_URL / NATS_CONTEXT / NATS_CREDS …) checked without connecting: one naming nothing
 * usable is a usage error (exit 2, the error then the usage), said before connecting.
 */
export function checkConnection(conn: CliConnectionFlags, usage: string): void {
  try {
    checkConnectionSettings(conn);
  } catch (err) {
    if (err instanceof ConnectionSettingInvalid) throw new CliError(`${err.message}\n${usage}`, 2);
    throw err;
  }
}

/**
 * A RUN_ID, CAMPAIGN_ID or other UUID argument (`what` names it), checked before connecting: anything that is no UUID
 * (isUuid, either case) is a usage error (exit 2, the error then the usage), not a request the stack refuses.
 */
export function uuidArg(value: string, what: string, usage: string): string {
  if (!isUuid(value)) throw new CliError(`${what} must be a UUID (8-4-4-4-12 hex digits), got ${JSON.stringify(value)}\n${usage}`, 2);
  return value;
}

const isOptionOf = (spec: { valued: readonly string[]; switches: readonly string[] }, name: string): boolean => spec.valued.includes(name) || spec.switches.includes(name);

/** A missing or unknown subcommand: said first, then the usage (exit 2). */
export function unknownCommand(sub: string | undefined, usage: string): CliError {
  return new CliError(`${sub === undefined ? 'a command is needed' : `unknown command '${sub}'`}\n${usage}`, 2);
}

export const str = (p: ParsedArgs, name: string): string | undefined => {
  const v = p.flags.get(name);
  return typeof v === 'string' ? v : undefined;
};

/** The rule for a count, limit or timeout that every script shares (scripts/lib/usage.js): decimal digits within a range. */
const { parseWholeNumber } = require('../lib/usage.js') as {
  parseWholeNumber(name: string, raw: string | undefined, range: { min?: number; max?: number }): { value: number; problem?: undefined } | { value?: undefined; problem: string };
};

/**
 * A whole number from `min` to `max` (parseWholeNumber: decimal digits, so `0x10`, `1e3` or `5.0` are refused, never
 * converted), or undefined when the option is absent; anything else is a usage error (exit 2).
 */
export function intFlag(p: ParsedArgs, name: string, usage: string, min = 1, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const v = str(p, name);
  if (v === undefined) return undefined;
  const parsed = parseWholeNumber(name, v, { min, max });
  if (parsed.problem !== undefined) throw new CliError(`${parsed.problem}\n${usage}`, 2);
  return parsed.value;
}

/** A date and time (ISO 8601), as an ISO string, or undefined when the option is absent; anything else is a usage error. */
export function timeFlag(p: ParsedArgs, name: string, usage: string): string | undefined {
  const v = str(p, name);
  if (v === undefined) return undefined;
  const t = Date.parse(v);
  if (Number.isNaN(t)) throw new CliError(`--${name} must be a date and time (ISO 8601), e.g. 2026-11-24T07:00:00Z\n${usage}`, 2);
  return new Date(t).toISOString();
}

/**
 * `--since` and `--until` (each timeFlag), which name the range [since, until): a since not before the until names no
 * time at all, a usage error (exit 2) rather than a request answered with nothing.
 */
export function timeRange(p: ParsedArgs, usage: string): { since?: string; until?: string } {
  const since = timeFlag(p, 'since', usage);
  const until = timeFlag(p, 'until', usage);
  if (since !== undefined && until !== undefined && Date.parse(since) >= Date.parse(until)) {
    throw new CliError(`--since ${since} is not before --until ${until}: the range [since, until) would be empty\n${usage}`, 2);
  }
  return { since, until };
}

/**
 * Options that apply only with another (`needs`: `--head needs --file`) or never with it (`not`), each said as a usage
 * error naming both (`why` adds what to do instead), never silently ignored.
 */
export function checkCombinations(p: ParsedArgs, usage: string, rules: ReadonlyArray<{ option: string; needs?: string; not?: string; why?: string }>): void {
  for (const { option, needs, not, why } of rules) {
    if (!p.flags.has(option)) continue;
    if (needs && !p.flags.has(needs)) throw new CliError(`--${option} needs --${needs}${why ? ` (${why})` : ''}\n${usage}`, 2);
    if (not && p.flags.has(not)) throw new CliError(`--${option} does not go with --${not}${why ? ` (${why})` : ''}\n${usage}`, 2);
  }
}

/** What went wrong with a file, in words (never Node's `ENOENT: …` text). */
export function fileProblem(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const words: Record<string, string> = {
    ENOENT: 'no such file or folder', EACCES: 'permission denied', EPERM: 'permission denied', EISDIR: 'it is a folder',
    ENOTDIR: 'a part of its path is not a folder', ENOSPC: 'no space left on the device', EROFS: 'a read-only file system', ENAMETOOLONG: 'the name is too long',
  };
  return (code && words[code]) ?? `cannot be used${code ? ` (${code})` : ''}`;
}

/**
 * The file (or, with `kind` 'folder', the folder) an option names, checked before connecting: it exists, is of that
 * kind and can be read; else a usage error naming the option (exit 2). Undefined when the option is absent.
 */
export function inputPath(p: ParsedArgs, name: string, usage: string, kind: 'file' | 'folder' = 'file'): string | undefined {
  const file = str(p, name);
  if (file === undefined) return undefined;
  const fail = (why: string) => new CliError(`--${name} ${file}: ${why}\n${usage}`, 2);
  let isFolder: boolean;
  try {
    isFolder = statSync(file).isDirectory();
    accessSync(file, constants.R_OK);
  } catch (err) {
    throw fail((err as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : `cannot be read (${fileProblem(err)})`);
  }
  if (isFolder !== (kind === 'folder')) throw fail(isFolder ? 'is a folder, not a file' : 'is a file, not a folder');
  return file;
}

/**
 * The file an `--out`-like option names, checked before connecting: its folder exists and may be written (and the file,
 * when it exists, is a file that may be replaced); else a usage error naming the option (exit 2).
 */
export function outputPath(p: ParsedArgs, name: string, usage: string): string | undefined {
  const file = str(p, name);
  if (file === undefined) return undefined;
  const fail = (why: string) => new CliError(`--${name} ${file}: ${why}\n${usage}`, 2);
  const folder = path.dirname(path.resolve(file));
  const stat = (f: string) => {
    try {
      return statSync(f);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw fail(`cannot be written (${fileProblem(err)})`);
    }
  };
  const parent = stat(folder);
  if (!parent) throw fail(`the folder ${folder} does not exist`);
  if (!parent.isDirectory()) throw fail(`${folder} is not a folder`);
  const existing = stat(file);
  if (existing?.isDirectory()) throw fail('is a folder; name a file to write');
  // Permission bits are not the last word (root passes every access check; /proc, a read-only mount refuse anyway):
  // the file is opened as the write will open it, without truncating it, and a file this check created is removed.
  try {
    closeSync(openSync(file, 'a'));
    if (!existing) unlinkSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw fail(`cannot be written (${code === 'ENOENT' ? `${folder} takes no new files` : fileProblem(err)})`);
  }
  return file;
}

/**
 * Runs a command body with one connection as `localIdentity` (on the local stack with no credentials named): every
 * command goes through here, so a permissions violation met anywhere in the body (a request, a read of the log or a
 * store) is the refusal in words (exit 3), naming the identity the command is for.
 */
export async function withConnection<T = number>(conn: CliConnectionFlags, body: (nc: NatsConnection) => Promise<T>, localIdentity: LocalIdentity = 'operator', opts: { follows?: boolean } = {}): Promise<T> {
  const nc = await connectCli(conn, 'runledger-cli', localIdentity, opts);
  try {
    return await body(nc);
  } catch (err) {
    throw asRefusal(err, localIdentity, nc);
  } finally {
    await nc.close().catch(() => undefined);
  }
}

/** The top of every operator command: errors become a sentence on stderr and an exit code, never a stack. */
export async function runCommand(body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (err) {
    if (err instanceof ConnectionRefused || err instanceof CliError) {
      process.stderr.write(`${printableLines(err.message)}\n`); // a service's error reply may echo what a caller sent
      return err.exitCode;
    }
    throw err;
  }
}

/** Request/reply on a documented subject; an error reply becomes a CliError with its stable code. */
export async function ask<T>(nc: NatsConnection, subject: string, body: unknown, timeoutMs = 30_000): Promise<T> {
  const msg = await nc.request(subject, encodeJson(body), { timeout: timeoutMs }).catch((err: Error) => {
    throw new CliError(unansweredRequest(subject, err, nc), 3);
  });
  const reply = decodeReply(msg.data, msg.headers);
  if (!reply.ok) throw new CliError(`${subject}: ${reply.error.code} ${reply.error.message}${reply.error.details ? ` (${reply.error.details.join('; ')})` : ''}`, reply.error.code === 'REQUEST.INVALID' ? 2 : 1);
  return reply.body as T;
}

export const json = (value: unknown): void => void process.stdout.write(`${terminalJson(value, 2)}\n`);
