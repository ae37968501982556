/**
 * runledger audit — operator commands for the tamper-evident audit ledger.
 *
 *   runledger audit verify                  ask the running stack (rl.audit.verify) to re-verify the whole chain
 *   runledger audit verify --file F.jsonl   verify an exported copy offline (no stack needed)
 *   runledger audit export [--out F.jsonl]  write the chain as JSON lines, one ChainEntry per line (stdout without --out)
 *
 * Exit codes: 0 chain intact, 1 chain broken, 2 usage or unreadable input, 3 the stack cannot be reached.
 * The export reads the log subject rl.log.audit.chain directly (the audit-ledger is its only writer), so a
 * copy can be taken, archived and verified later even when the ledger service is down.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { aggregateRef, EventLog } from '@runledger/event-log';
import { ChainEntry, ChainVerification, verifyChain } from '@runledger/governance';
// Deep imports on purpose: the packages' indexes also load the DTOs and Nest, which an operator command
// does not need (they want reflect-metadata and add seconds to every start).
import { LOG_KINDS, SUBJECTS } from '../../libs/contracts/src/subjects';
import { decodeReply, encodeJson } from '../../libs/messaging/src/codec';
import { CliConnectionFlags, connectCli, CONNECTION_USAGE, ConnectionRefused, ConnectionUsageError, parseConnectionFlags } from './connection';

const USAGE = `usage: runledger audit verify [--file chain.jsonl] | runledger audit export [--out chain.jsonl]   ${CONNECTION_USAGE}`;
const CHAIN_SUBJECT = aggregateRef(LOG_KINDS.audit, 'chain');

/** What each break means, for the operator reading the report. */
const REASONS: Record<string, string> = {
  hash_mismatch: "the entry's content does not match its entry_hash (edited)",
  prev_link_mismatch: "the entry's prev_hash is not the previous entry's hash (an entry before it was replaced, or the chain was spliced)",
  sequence_gap: 'the expected entry is missing (deleted)',
  reordered: 'entries are out of order',
  duplicate: 'an entry appears twice',
};

class CliError extends Error {
  constructor(message: string, readonly exitCode: number) {
    super(message);
  }
}

export async function main(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  try {
    let parsed: { flags: CliConnectionFlags; rest: string[] };
    try {
      parsed = parseConnectionFlags(rest);
    } catch (err) {
      if (err instanceof ConnectionUsageError) throw new CliError(`${err.message}\n${USAGE}`, 2);
      throw err;
    }
    const opts = parseOptions(parsed.rest);
    if (sub === 'verify') return opts.file ? verifyFile(opts.file) : await verifyLive(parsed.flags);
    if (sub === 'export') return await exportChain(opts.out, parsed.flags);
    throw new CliError(USAGE, 2);
  } catch (err) {
    if (err instanceof ConnectionRefused) {
      process.stderr.write(`${err.message}\n`);
      return err.exitCode;
    }
    if (!(err instanceof CliError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return err.exitCode;
  }
}

function parseOptions(args: string[]): { file?: string; out?: string } {
  const opts: { file?: string; out?: string } = {};
  for (let i = 0; i < args.length; i++) {
    const flag = args[i];
    const value = args[i + 1];
    if ((flag === '--file' || flag === '--out') && value && !value.startsWith('--')) {
      opts[flag === '--file' ? 'file' : 'out'] = value;
      i++;
    } else throw new CliError(`unknown or incomplete option ${flag}\n${USAGE}`, 2);
  }
  return opts;
}

/** Prints the verdict in the documented one-line form; returns the exit code. */
export function report(result: ChainVerification, headHash: string | null): number {
  if (result.ok) {
    process.stdout.write(`audit chain OK: ${result.length} entries, head ${headHash ?? 'none'}\n`);
    return 0;
  }
  process.stdout.write(`audit chain BROKEN at entry ${result.first_broken_seq}: ${result.reason} — ${REASONS[result.reason] ?? 'see the entry'}\n`);
  return 1;
}

async function verifyLive(flags: CliConnectionFlags): Promise<number> {
  const nc = await connectCli(flags);
  try {
    const msg = await nc.request(SUBJECTS.auditVerify, encodeJson({}), { timeout: 120_000 }).catch((err: Error) => {
      throw new CliError(`rl.audit.verify did not answer (${err.message}); is the audit-ledger running?`, 3);
    });
    const reply = decodeReply(msg.data, msg.headers);
    if (!reply.ok) throw new CliError(`rl.audit.verify failed: ${reply.error.code} ${reply.error.message}`, 3);
    const body = reply.body as ChainVerification & { head_hash: string | null };
    return report(body, body.head_hash);
  } finally {
    await nc.close();
  }
}

function verifyFile(file: string): number {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as Error).message}`, 2);
  }
  const entries: ChainEntry[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() === '') continue;
    let entry: ChainEntry;
    try {
      entry = JSON.parse(lines[i]) as ChainEntry;
    } catch {
      // Everything before the unreadable line may still be intact; report the break where it starts.
      const before = verifyChain(entries);
      if (!before.ok) return report(before, null);
      process.stdout.write(`audit chain BROKEN at entry ${entries.length + 1}: unreadable — line ${i + 1} is not a JSON chain entry\n`);
      return 1;
    }
    entries.push(entry);
  }
  return report(verifyChain(entries), entries[entries.length - 1]?.entry_hash ?? null);
}

async function exportChain(out: string | undefined, flags: CliConnectionFlags): Promise<number> {
  const nc = await connectCli(flags);
  try {
    const log = new EventLog(jetstream(nc), await jetstreamManager(nc), { producer: 'runledger-cli', clock: { now: () => new Date() } });
    const events = await log.read(CHAIN_SUBJECT);
    const jsonl = events.map((e) => `${JSON.stringify(e.data as ChainEntry)}\n`).join('');
    if (out) {
      writeFileSync(out, jsonl);
      process.stderr.write(`exported ${events.length} audit chain entries to ${out}\n`);
    } else {
      process.stdout.write(jsonl);
    }
    return 0;
  } finally {
    await nc.close();
  }
}
