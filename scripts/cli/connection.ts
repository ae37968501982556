/**
 * How every `runledger` command reaches NATS: one place for servers, credentials and the refusal messages.
 *
 * Credentials are taken the NATS way, first match wins:
 *   --creds FILE | NATS_CREDS          a .creds file (JWT + nkey seed) or an nkey seed file
 *   --nats-user U --nats-password P | NATS_USER, NATS_PASSWORD
 *   --context NAME | NATS_CONTEXT      a `nats` CLI context (~/.config/nats/context/NAME.json: url, creds, user, password)
 * Servers: --server URL | NATS_URL | the context's url | nats://127.0.0.1:4322 (the nats-server `npm start` runs);
 * one URL or a comma-separated list, a malformed one a wrong value (exit 2) said before connecting.
 * Against that local server with no credentials given, the command uses the identity `npm start` generated for
 * its kind of user (.data/credentials/caller.nk for chat and agent --agent, which callers start; admin.nk for erase
 * and replay; operator.nk for the other operator commands), when present.
 * Replies come back on the identity's own inbox prefix (--inbox-prefix | NATS_INBOX_PREFIX | the context's
 * inbox_prefix), because a least-privilege server lets each identity subscribe only to its own replies.
 */
import { existsSync, readFileSync } from 'node:fs';
import { CredentialsMissingError, defaultInboxPrefix, identityOptions } from '../../libs/messaging/src/nats-identity';
import { homedir } from 'node:os';
import path from 'node:path';
import { connect, NatsConnection, ConnectionOptions } from '@nats-io/transport-node';

/** The nats-server `npm start` runs, and whether a server names it: scripts/lib/nats-url.js, shared with the stack. */
const natsUrl = require('../lib/nats-url.js') as { LOCAL_NATS_URL: string; LOCAL_DATA_DIR: string; isLocalStack(server: string): boolean; parseNatsUrl(url: string): { scheme: string } };
export const { LOCAL_NATS_URL, LOCAL_DATA_DIR, isLocalStack } = natsUrl;

/** Where `npm start` writes `identity`'s seed, and how to show it from here (`.data/credentials/operator.nk`). */
const localCredsFile = (identity: LocalIdentity) => path.join(LOCAL_DATA_DIR, 'credentials', `${identity}.nk`);
export const shownLocalCredsFile = (identity: LocalIdentity) => path.relative(process.cwd(), localCredsFile(identity));

export const CONNECTION_USAGE =
  '[--server URL] [--creds FILE | --nats-user U --nats-password P | --context NAME] [--inbox-prefix PREFIX]';

export interface CliConnectionFlags {
  server?: string;
  creds?: string;
  user?: string;
  password?: string;
  context?: string;
  inboxPrefix?: string;
}

/** Raised when the stack cannot be used; `exitCode` is what the command exits with (3: not reachable or refused). */
export class ConnectionRefused extends Error {
  readonly exitCode: number = 3;
}

/** The server refused the identity (none given, or these): the message says what to pass instead. */
export class CredentialsRefused extends ConnectionRefused {}

/** A connection setting that names nothing usable (a credentials file or context that does not exist): exit 2, a wrong value. */
export class ConnectionSettingInvalid extends ConnectionRefused {
  override readonly exitCode: number = 2;
}

const FLAG_NAMES: Record<string, keyof CliConnectionFlags> = {
  '--server': 'server',
  '--creds': 'creds',
  '--nats-user': 'user',
  '--nats-password': 'password',
  '--context': 'context',
  '--inbox-prefix': 'inboxPrefix',
};

/** Takes the connection flags out of a command's arguments and returns the rest untouched. */
export function parseConnectionFlags(args: string[]): { flags: CliConnectionFlags; rest: string[] } {
  const flags: CliConnectionFlags = {};
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const name = FLAG_NAMES[args[i]];
    if (!name) {
      rest.push(args[i]);
      continue;
    }
    const value = args[i + 1];
    if (value === undefined || value.startsWith('--')) throw new ConnectionUsageError(`${args[i]} needs a value`);
    flags[name] = value;
    i++;
  }
  return { flags, rest };
}

export class ConnectionUsageError extends Error {}

interface NatsContextFile {
  url?: string;
  creds?: string;
  user?: string;
  password?: string;
  nkey?: string;
  inbox_prefix?: string;
}

function readContext(name: string): NatsContextFile {
  const file = name.endsWith('.json') ? name : path.join(process.env.XDG_CONFIG_HOME ?? path.join(homedir(), '.config'), 'nats', 'context', `${name}.json`);
  if (!existsSync(file)) throw new ConnectionSettingInvalid(`NATS context "${name}" not found (${file})`);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as NatsContextFile;
  } catch {
    throw new ConnectionSettingInvalid(`NATS context file ${file} is not valid JSON`);
  }
}

/**
 * The servers a setting names: one NATS URL or a comma-separated list (`nats://host:port`, `tls://host:port` or
 * `host:port`, each read by scripts/lib/nats-url.js); anything else is a wrong value (exit 2), said before connecting,
 * naming where it came from (`source`: --server, NATS_URL or the context's url).
 */
export function natsServers(server: string, source = '--server'): string[] {
  const servers = server.split(',').map((s) => s.trim());
  for (const s of servers) {
    let scheme: string | undefined;
    try {
      scheme = s ? natsUrl.parseNatsUrl(s).scheme : undefined;
    } catch {
      scheme = undefined;
    }
    if (scheme !== 'nats' && scheme !== 'tls') {
      throw new ConnectionSettingInvalid(`${source} ${JSON.stringify(server)} is not a NATS server URL: give nats://HOST:PORT, tls://HOST:PORT or HOST:PORT (several separated by commas)`);
    }
  }
  return servers;
}

/** The resolved settings, flags over environment over context (a malformed server is refused here). Exported for tests and for `--json` diagnostics. */
export function resolveConnection(flags: CliConnectionFlags, env: NodeJS.ProcessEnv = process.env): Required<Pick<CliConnectionFlags, 'server'>> & CliConnectionFlags {
  const contextName = flags.context ?? env.NATS_CONTEXT;
  const ctx = contextName ? readContext(contextName) : {};
  const [server, source] = flags.server !== undefined ? [flags.server, '--server'] : env.NATS_URL ? [env.NATS_URL, 'NATS_URL'] : ctx.url ? [ctx.url, `the url of NATS context "${contextName}"`] : [LOCAL_NATS_URL, 'the default server'];
  natsServers(server, source);
  return {
    server,
    creds: flags.creds ?? env.NATS_CREDS ?? ctx.creds ?? ctx.nkey,
    user: flags.user ?? env.NATS_USER ?? ctx.user,
    password: flags.password ?? env.NATS_PASSWORD ?? ctx.password,
    inboxPrefix: flags.inboxPrefix ?? env.NATS_INBOX_PREFIX ?? ctx.inbox_prefix,
  };
}

function authOptions(settings: CliConnectionFlags): Partial<ConnectionOptions> {
  try {
    return identityOptions({ creds: settings.creds, user: settings.user, password: settings.password, inboxPrefix: settings.inboxPrefix });
  } catch (err) {
    if (err instanceof CredentialsMissingError) throw new ConnectionSettingInvalid(err.message);
    throw err;
  }
}

/**
 * The connection settings checked without connecting (a wrong value is exit 2, said before anything is asked): the
 * server names NATS URLs, a named context exists, a named credentials file exists.
 */
export function checkConnectionSettings(flags: CliConnectionFlags): void {
  authOptions(resolveConnection(flags));
}

/** The seed `npm start` wrote for `identity`, if this is the local stack and the caller named no credentials. */
function localDefaultCreds(settings: CliConnectionFlags, identity: LocalIdentity): string | undefined {
  if (settings.creds || settings.user || !isLocalStack(settings.server ?? LOCAL_NATS_URL)) return undefined;
  const file = localCredsFile(identity);
  return existsSync(file) ? file : undefined;
}

export type LocalIdentity = 'caller' | 'operator' | 'admin';

/**
 * Which of the local identities may ask `subject`, as the permissions table says (`requests.<address>.call`): the
 * agent entry points are callers', approvals and the rl.runs/rl.audit subjects operators'. Read only for a refusal.
 */
export function identityFor(subject: string): LocalIdentity {
  const table = (require('../lib/permissions.js') as { loadTable(): { requests: Record<string, { call?: string[] }> } }).loadTable();
  const matches = (address: string) => address.split('.').length === subject.split('.').length && address.split('.').every((t, i) => t.startsWith('{') || t === subject.split('.')[i]);
  const call = Object.entries(table.requests).find(([address]) => matches(address))?.[1].call ?? [];
  return call.includes('caller') ? 'caller' : 'operator';
}

/** The settings a command connects with: on the local stack with no credentials named, `defaultIdentity`'s seed. */
function effectiveSettings(flags: CliConnectionFlags, defaultIdentity: LocalIdentity): ReturnType<typeof resolveConnection> {
  const resolved = resolveConnection(flags);
  return { ...resolved, creds: resolved.creds ?? localDefaultCreds(resolved, defaultIdentity) };
}

/**
 * The identity a connection asks as, from its inbox prefix (`_INBOX_<identity>`, given or implied by a seed file named
 * `<identity>.nk`): a caller's door is named after it (rl.caller.<identity>.…) and answers only on that inbox.
 */
export function connectionIdentity(flags: CliConnectionFlags, defaultIdentity: LocalIdentity): string | undefined {
  const settings = effectiveSettings(flags, defaultIdentity);
  const prefix = settings.inboxPrefix ?? defaultInboxPrefix(settings.creds);
  return prefix ? /^_INBOX_([A-Za-z0-9_-]+)$/.exec(prefix)?.[1] : undefined;
}

/**
 * Connects as the identity the flags and environment name (or, on the local stack, as `defaultIdentity`);
 * refusals become one clear sentence and exit 3.
 */
export async function connectCli(flags: CliConnectionFlags, name = 'runledger-cli', defaultIdentity: LocalIdentity = 'operator', opts: { follows?: boolean } = {}): Promise<NatsConnection> {
  const settings = effectiveSettings(flags, defaultIdentity);
  try {
    const nc = await connect({
      servers: natsServers(settings.server),
      name,
      timeout: 5_000,
      // A command that follows (runs tail) outlives a nats-server restart; any other fails at once and says so.
      ...(opts.follows ? { maxReconnectAttempts: -1, reconnectTimeWait: 500 } : { maxReconnectAttempts: 0 }),
      ...authOptions(settings),
    });
    INBOXES.set(nc, { used: settings.inboxPrefix ?? defaultInboxPrefix(settings.creds) ?? '_INBOX', own: defaultInboxPrefix(settings.creds) });
    return nc;
  } catch (err) {
    if (err instanceof ConnectionRefused) throw err;
    const message = (err as Error).message ?? String(err);
    if (/authoriz|authentic|permission/i.test(message)) throw new CredentialsRefused(credentialsRefused(settings, defaultIdentity, message));
    throw new ConnectionRefused(`cannot reach NATS at ${settings.server} (${message}); start the stack or set NATS_URL / --server`);
  }
}

/**
 * What to say when the server refused the connection's identity: with none given (anonymous, as a `--server` other
 * than npm start's default gets unless told), every way to name one, flag and variable, and where npm start writes
 * this command's; with some given, that these were refused and how to name others.
 */
export function credentialsRefused(settings: CliConnectionFlags & { server: string }, identity: LocalIdentity, message: string): string {
  const ways = '--creds FILE (or NATS_CREDS=FILE), --nats-user U --nats-password P (or NATS_USER and NATS_PASSWORD) or --context NAME (or NATS_CONTEXT)';
  const file = shownLocalCredsFile(identity);
  const npmStarts = `a stack npm start runs has this command's identity, the ${identity}, in ${file} (RL_DATA_DIR/credentials/${identity}.nk)${existsSync(localCredsFile(identity)) ? '' : ', not there now'}`;
  if (!settings.creds && !settings.user) return `NATS at ${settings.server} wants credentials and none were given (${message}): pass ${ways}; ${npmStarts}`;
  return `NATS at ${settings.server} refused these credentials (${message}); pass others: ${ways}; ${npmStarts}`;
}

/**
 * The one sentence for what the server's permissions refused this identity (README "Operator commands", exit 3):
 * `action` says what it may not do, `identity` which local identity may.
 */
export function notPermitted(action: string, identity: LocalIdentity): string {
  return `refused: this identity is not permitted to ${action} (see deploy/nats/permissions.yaml); connect as an identity that may, e.g. --creds with the ${identity}'s credentials (${shownLocalCredsFile(identity)} on the local stack)`;
}

/** The operation and subject of a permissions violation (nats.js's PermissionViolationError, or its text in a wrapping error), else null. */
export function permissionViolation(err: unknown): { operation: 'publish' | 'subscription'; subject: string } | null {
  for (let e = err as { message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    const m = /permissions violation for (publish|subscription) to "([^"]*)"/i.exec(String(e.message ?? ''));
    if (m) return { operation: m[1].toLowerCase() as 'publish' | 'subscription', subject: m[2] };
    if (/permissions violation/i.test(String(e.message ?? ''))) return { operation: 'publish', subject: 'a subject this command uses' };
  }
  return null;
}

/** The reply inbox prefix each connection subscribes under, and the one its credentials imply (`<identity>.nk`: `_INBOX_<identity>`). */
const INBOXES = new WeakMap<NatsConnection, { used: string; own?: string }>();

/**
 * A subscription refused under the connection's reply inbox prefix, in words, else null: a least-privilege server lets
 * an identity receive replies only under its own prefix, so what it refused is the inbox (a wrong --inbox-prefix),
 * not the request, and the sentence names the prefix these credentials may use when their file name says it.
 */
function inboxRefused(subject: string, nc: NatsConnection | undefined): string | null {
  const inbox = nc ? INBOXES.get(nc) : undefined;
  if (!(inbox ? subject.startsWith(`${inbox.used}.`) : subject.startsWith('_INBOX'))) return null;
  const prefix = inbox?.used ?? subject.split('.')[0];
  const own = inbox?.own && inbox.own !== prefix ? inbox.own : undefined;
  return `refused: this identity is not permitted to subscribe to its reply inbox ${subject} (inbox prefix ${prefix}): the server lets an identity receive replies only under its own prefix${own ? `, ${own} for these credentials` : ', _INBOX_<identity> (see deploy/nats/permissions.yaml)'}; pass --inbox-prefix ${own ?? '_INBOX_<identity>'} (or NATS_INBOX_PREFIX) or connect as the identity this prefix belongs to`;
}

/**
 * The one sentence for a permissions violation met in a command, else null: a refused subscription to the reply
 * inbox says so (above); any other violation is `refused(violation)`, what the caller says this identity may not do.
 */
export function refusalText(err: unknown, nc: NatsConnection | undefined, refused: (violation: { operation: 'publish' | 'subscription'; subject: string }) => string): string | null {
  const violation = permissionViolation(err);
  if (!violation) return null;
  return (violation.operation === 'subscription' ? inboxRefused(violation.subject, nc) : null) ?? refused(violation);
}

/**
 * A permissions violation met anywhere in a command (a request, a read of the log or a store through the JetStream
 * API) as the refusal, naming `identity` (the one the command is meant for; an `rl.…` request names the one the
 * permissions table lets ask it); anything else is returned as it is.
 */
export function asRefusal(err: unknown, identity: LocalIdentity, nc?: NatsConnection): unknown {
  // An error that carries its exit code (CliError, ConnectionRefused) already says what went wrong, e.g. a service's
  // own error reply quoting a violation of the service's: only the client's own refusal by the server is this identity's.
  if (typeof (err as { exitCode?: unknown } | null)?.exitCode === 'number') return err;
  const text = refusalText(err, nc, ({ operation, subject }) => operation === 'subscription'
    ? notPermitted(`subscribe to ${subject}`, identity)
    : notPermitted(`ask ${subject}`, subject.startsWith('rl.') ? identityFor(subject) : identity));
  return text === null ? err : new ConnectionRefused(text);
}

/**
 * Why a request on `subject` got no answer, as one sentence for a person: refused by the server's permissions
 * (this identity may not ask that, or may not receive the reply on `nc`'s inbox), nobody serving it (the stack or
 * `service` is not running), or no answer in time.
 */
export function unansweredRequest(subject: string, err: unknown, nc: NatsConnection | undefined, service = 'the stack'): string {
  const message = (err as Error)?.message ?? String(err);
  const refused = refusalText(err, nc, () => notPermitted(`ask ${subject}`, identityFor(subject)));
  if (refused) return refused;
  if (/no responders|503/i.test(message)) return `nobody answers ${subject}: is ${service} running?`;
  return `${subject} did not answer (${message}); is ${service} running?`;
}
