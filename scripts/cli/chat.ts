/**
 * `runledger chat --user <id> [--conversation <uuid>]`: talk to the task assistant from a terminal.
 * Each line goes to agents.task-assistant.process with the same conversation id, so the assistant's
 * conversation projection (history, pending delete confirmation) carries the chat; the CLI keeps no state.
 * Exit codes: 0 done, 2 usage (invalid arguments), 3 Runledger not reachable.
 */
import { randomUUID } from 'node:crypto';
import * as readline from 'node:readline';
import { NatsConnection, RequestError } from '@nats-io/transport-node';
// Imported by path, not through @runledger/contracts: the package index loads every DTO and validator,
// which a terminal client does not need at start-up.
import { SUBJECTS } from '../../libs/contracts/src/subjects';
import { CliConnectionFlags, connectCli, CONNECTION_USAGE, ConnectionRefused, ConnectionSettingInvalid, ConnectionUsageError, CredentialsRefused, parseConnectionFlags, permissionViolation, unansweredRequest } from './connection';
import { printable } from './format';
import { isUuid } from '../../libs/kernel/src/ids';

const USAGE = `usage: runledger chat --user <id> [--conversation <uuid>] ${CONNECTION_USAGE}\n  (or: npm run chat -- --user <id>)\n`;
const NOT_RUNNING = 'Runledger is not running: start it with npm start\n';
const HELP = [
  'Type what you want in your own words, for example:',
  '  add task buy milk · show my tasks · mark buy milk as done',
  '  rename buy milk to buy oat milk · delete buy milk (then yes / no)',
  'Commands: /new  start a new conversation · /help  this text · /quit  leave',
].join('\n');
const PREFIX = 'assistant> ';
// The assistant answers after carrying the decision out; a tool may take its own timeout plus bookkeeping.
const REQUEST_TIMEOUT_MS = 60_000;

interface ChatOptions {
  user: string;
  conversation: string;
}

interface Decision {
  response_text?: string | null;
  clarification_question?: string | null;
}

/** The conversation cannot go on: the stack is down, or this identity may not ask (its message says which). */
class NotRunning extends Error {}

/** Parses `--user <id>`, `--user=<id>`, `--conversation <uuid>`, `--help`; a string is a usage error. */
export function parseArgs(args: string[]): ChatOptions | 'help' | string {
  const opts: Partial<ChatOptions> = {};
  for (let i = 0; i < args.length; i += 1) {
    const [flag, inline] = args[i].split(/=(.*)/s, 2);
    if (flag === '--help' || flag === '-h') return 'help';
    if (flag !== '--user' && flag !== '--conversation') return `unknown argument: ${args[i]}`;
    const value = inline ?? args[(i += 1)];
    if (value === undefined || value.trim() === '' || value.startsWith('--')) return `${flag} needs a value`;
    if (flag === '--user') opts.user = value.trim();
    else opts.conversation = value.trim();
  }
  if (!opts.user) return '--user is required';
  if (opts.conversation !== undefined && !isUuid(opts.conversation)) return '--conversation must be a UUID';
  return { user: opts.user, conversation: opts.conversation ?? randomUUID() };
}

/** Multi-line replies (task lists) are indented under the prefix so they read as one answer. */
function print(text: string): void {
  process.stdout.write(`${PREFIX}${text.split('\n').map(printable).join(`\n${' '.repeat(PREFIX.length)}`)}\n`);
}

async function ask(nc: NatsConnection, opts: ChatOptions, message: string): Promise<string> {
  let reply;
  try {
    const body = JSON.stringify({ user_id: opts.user, conversation_id: opts.conversation, message });
    reply = await nc.request(SUBJECTS.taskAssistantProcess, body, { timeout: REQUEST_TIMEOUT_MS });
  } catch (err) {
    if (err instanceof RequestError && err.isNoResponders()) throw new NotRunning(NOT_RUNNING);
    if (permissionViolation(err)) throw new NotRunning(`${unansweredRequest(SUBJECTS.taskAssistantProcess, err, nc)}\n`);
    if (nc.isClosed()) throw new NotRunning(NOT_RUNNING);
    return 'Runledger did not answer in time. Please try again.';
  }
  const body = reply.json<Decision & { message?: string }>();
  // Rl-Status: error carries a wire error whose message is written for people (no internals).
  if (reply.headers?.get('Rl-Status') === 'error') return body.message ?? 'Something went wrong. Please try again.';
  return body.response_text ?? body.clarification_question ?? '';
}

async function converse(nc: NatsConnection, opts: ChatOptions): Promise<number> {
  const tty = Boolean(process.stdin.isTTY);
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: tty, prompt: 'you> ' });
  // Ctrl-C leaves like /quit (readline would otherwise only pause the input and keep the process alive).
  rl.on('SIGINT', () => rl.close());
  process.stdout.write(`Runledger task assistant: user ${opts.user}, conversation ${opts.conversation}. Type /help for help.\n`);
  if (tty) rl.prompt();
  try {
    // Lines are handled one at a time, in order: each message may depend on the previous answer ("yes").
    for await (const raw of rl) {
      const line = raw.trim();
      if (line === '/quit' || line === '/exit') break;
      if (line === '/help') process.stdout.write(`${HELP}\n`);
      else if (line === '/new') {
        opts.conversation = randomUUID();
        process.stdout.write(`Started a new conversation (${opts.conversation}).\n`);
      } else if (line.startsWith('/')) process.stdout.write(`Unknown command ${line}. Type /help for help.\n`);
      else if (line !== '') print(await ask(nc, opts, line));
      if (tty) rl.prompt();
    }
  } finally {
    rl.close();
  }
  return 0;
}

export async function main(args: string[]): Promise<number> {
  let connection: { flags: CliConnectionFlags; rest: string[] };
  try {
    connection = parseConnectionFlags(args);
  } catch (err) {
    if (!(err instanceof ConnectionUsageError)) throw err;
    process.stderr.write(`runledger chat: ${err.message}\n${USAGE}`);
    return 2;
  }
  const opts = parseArgs(connection.rest);
  if (opts === 'help') {
    process.stdout.write(`${USAGE}\n${HELP}\n`);
    return 0;
  }
  if (typeof opts === 'string') {
    process.stderr.write(`runledger chat: ${opts}\n${USAGE}`);
    return 2;
  }
  let nc: NatsConnection;
  try {
    nc = await connectCli(connection.flags, 'runledger-chat', 'caller');
  } catch (err) {
    if (!(err instanceof ConnectionRefused)) throw err;
    if (err instanceof ConnectionSettingInvalid) {
      process.stderr.write(`runledger chat: ${err.message}\n${USAGE}`);
      return 2;
    }
    process.stderr.write(err instanceof CredentialsRefused ? `${err.message}\n` : NOT_RUNNING);
    return 3;
  }
  try {
    return await converse(nc, opts);
  } catch (err) {
    if (!(err instanceof NotRunning)) throw err;
    process.stderr.write(err.message);
    return 3;
  } finally {
    await nc.close().catch(() => undefined);
  }
}
