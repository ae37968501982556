/**
 * `runledger agent --agent <profile-id> --prompt "<text>"`: the same session machinery, run by the decision
 * service over the bus (the caller's own door rl.caller.<identity>.sessions.start): the session is an `agent` run on the log, its tools go through the
 * tool gateway, and it survives a crash of the service. Prints the final report (or the whole reply with --json).
 *
 * On the local stack it connects as the caller identity `npm start` wrote (.data/credentials/caller.nk): sessions are
 * started by callers, each on its own door, named after the identity of the connection's inbox prefix. Exit codes (§2): 0 success, 1 session failure, 3 the stack is not reachable or refused the
 * credentials, 4 invalid arguments (a credentials file that does not exist too) or a refused request (unknown agent
 * …), 5 the agent's output schema does not compile.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import type { SessionReply } from '@runledger/contracts';
import { decodeReply, encodeJson } from '@runledger/messaging';
import { callerSubject } from '../../libs/contracts/src/subjects';
import { connectCli, connectionIdentity, ConnectionRefused, ConnectionSettingInvalid, ConnectionUsageError, parseConnectionFlags, unansweredRequest } from './connection';
import { printable, printableLines, terminalJson } from './format';

export interface BusIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

interface BusOptions {
  agent: string;
  prompt: string;
  requestId?: string;
  version?: string;
  json: boolean;
  timeoutMs: number;
}

function parse(args: readonly string[]): BusOptions | string {
  const opts: Partial<BusOptions> & { json: boolean; timeoutMs: number } = { json: false, timeoutMs: 600_000 };
  for (let i = 0; i < args.length; i++) {
    const flag = args[i]!;
    if (flag === '--json') {
      opts.json = true;
      continue;
    }
    const value = args[i + 1];
    if (value === undefined || value.startsWith('--')) return `missing value for ${flag}`;
    i++;
    if (flag === '--agent') opts.agent = value;
    else if (flag === '--prompt') opts.prompt = value;
    else if (flag === '--request-id') opts.requestId = value;
    else if (flag === '--version') opts.version = value;
    else if (flag === '--timeout-ms') opts.timeoutMs = Number(value);
    else return `unknown option ${flag} (with --agent the session runs over the bus)`;
  }
  if (!opts.agent || opts.prompt === undefined) return '--agent and --prompt are required';
  return opts as BusOptions;
}

export async function runOverBus(args: string[], io: BusIo): Promise<number> {
  let connection;
  try {
    connection = parseConnectionFlags(args);
  } catch (e) {
    if (!(e instanceof ConnectionUsageError)) throw e;
    io.stderr(`runledger agent: ${e.message}\n`);
    return 4;
  }
  const opts = parse(connection.rest);
  if (typeof opts === 'string') {
    io.stderr(`runledger agent: ${opts}\n`);
    return 4;
  }
  let nc: NatsConnection;
  try {
    // Sessions are started by callers, on their own door: on the local stack, as the caller identity.
    nc = await connectCli(connection.flags, 'runledger-agent', 'caller');
  } catch (e) {
    if (!(e instanceof ConnectionRefused)) throw e;
    io.stderr(`runledger agent: ${e.message}\n`);
    // A credentials file or context that does not exist is an invalid argument (§2: exit 4), not a refusal.
    return e instanceof ConnectionSettingInvalid ? 4 : 3;
  }
  try {
    const caller = connectionIdentity(connection.flags, 'caller');
    if (!caller) {
      io.stderr('runledger agent: cannot tell which caller identity this is: name its inbox prefix (--inbox-prefix _INBOX_<identity>); its sessions start on rl.caller.<identity>.sessions.start\n');
      return 4;
    }
    const subject = callerSubject(caller, 'sessions.start');
    const request = { agent: opts.agent, prompt: opts.prompt, ...(opts.requestId ? { request_id: opts.requestId } : {}), ...(opts.version ? { version: opts.version } : {}) };
    let msg;
    try {
      msg = await nc.request(subject, encodeJson(request), { timeout: opts.timeoutMs });
    } catch (e) {
      io.stderr(`runledger agent: ${unansweredRequest(subject, e, nc, 'the decision service')}\n`);
      return 3;
    }
    const decoded = decodeReply(msg.data, msg.headers);
    if (!decoded.ok) {
      const error = decoded.error as { code: string; message: string };
      io.stderr(`runledger agent: ${printable(`${error.code}: ${error.message}`)}\n`);
      return error.code === 'REQUEST.INVALID' || error.code === 'RUN.NOT_FOUND' ? 4 : 1;
    }
    const reply = decoded.body as SessionReply;
    const report = reply.result?.finalReport as { content?: string; content_json?: unknown } | undefined;
    if (opts.json) io.stdout(`${terminalJson(reply, 2)}\n`);
    else if (reply.result?.success && report) io.stdout(`${printableLines(report.content ?? JSON.stringify(report.content_json, null, 2))}\n`);
    if (reply.status === 'running') {
      io.stderr(`runledger agent: session ${reply.run_id} is still running; ask again with the same --request-id\n`);
      return 1;
    }
    if (reply.result?.success) return 0;
    io.stderr(`runledger agent: ${printable(`session ${reply.run_id} failed: ${reply.error ? `${reply.error.error_code}: ${reply.error.message}` : 'no final report'}`)}\n`);
    return reply.result?.error?.kind === 'invalid_schema' ? 5 : 1;
  } finally {
    await nc.close().catch(() => undefined);
  }
}
