/**
 * What every operator command shares: flag parsing, one connection, request/reply with the Rl-Status
 * convention decoded, and the exit codes (0 ok, 1 the answer is bad news — a difference, a broken chain,
 * 2 usage, 3 the stack cannot be reached or refused).
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { decodeReply, encodeJson } from '../../libs/messaging/src/codec';
import { printableLines, terminalJson } from './format';
import { asRefusal, CliConnectionFlags, connectCli, LocalIdentity, ConnectionRefused, ConnectionUsageError, parseConnectionFlags, unansweredRequest } from './connection';

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
 * `valued` take a value) and boolean switches (the names in `switches`); anything else is a usage error.
 */
export function parseArgs(args: string[], spec: { valued: string[]; switches: string[] }, usage: string): ParsedArgs {
  let parsed: { flags: CliConnectionFlags; rest: string[] };
  try {
    parsed = parseConnectionFlags(args);
  } catch (err) {
    if (err instanceof ConnectionUsageError) throw new CliError(`${err.message}\n${usage}`, 2);
    throw err;
  }
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

const isOptionOf = (spec: { valued: string[]; switches: string[] }, name: string): boolean => spec.valued.includes(name) || spec.switches.includes(name);

/** A missing or unknown subcommand: said first, then the usage (exit 2). */
export function unknownCommand(sub: string | undefined, usage: string): CliError {
  return new CliError(`${sub === undefined ? 'a command is needed' : `unknown command '${sub}'`}\n${usage}`, 2);
}

export const str = (p: ParsedArgs, name: string): string | undefined => {
  const v = p.flags.get(name);
  return typeof v === 'string' ? v : undefined;
};

export function intFlag(p: ParsedArgs, name: string, usage: string, min = 1): number | undefined {
  const v = str(p, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new CliError(`--${name} must be a whole number of at least ${min}\n${usage}`, 2);
  return n;
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
    throw asRefusal(err, localIdentity);
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
    throw new CliError(unansweredRequest(subject, err), 3);
  });
  const reply = decodeReply(msg.data, msg.headers);
  if (!reply.ok) throw new CliError(`${subject}: ${reply.error.code} ${reply.error.message}${reply.error.details ? ` (${reply.error.details.join('; ')})` : ''}`, reply.error.code === 'REQUEST.INVALID' ? 2 : 1);
  return reply.body as T;
}

export const json = (value: unknown): void => void process.stdout.write(`${terminalJson(value, 2)}\n`);
