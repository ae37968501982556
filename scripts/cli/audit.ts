/**
 * runledger audit — operator commands for the tamper-evident audit ledger.
 *
 *   runledger audit verify                  re-verify the whole chain as the log holds it (rl.log.audit.chain)
 *   runledger audit verify --file F.jsonl   verify an exported copy offline (no stack needed)
 *   runledger audit export [--out F.jsonl]  write the chain as JSON lines, one ChainEntry per line (stdout without --out)
 *   runledger audit coverage [--json]       contract 001 §6 over every run in the log
 *
 * Exit codes: 0 chain intact / full coverage, 1 chain broken / runs missing audit records, 2 usage or unreadable
 * input, 3 the stack cannot be reached. verify and coverage read the log themselves, with a progress bar on
 * stderr and no time limit (a large log takes longer, it does not time out); export reads rl.log.audit.chain
 * directly too (the audit-ledger is its only writer), so a copy can be taken even when the ledger is down.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { ChainEntry, ChainVerification, checkAuditCoverage, CoverageEvent, verifyChain } from '@runledger/governance';
import { CONNECTION_USAGE } from './connection';
import { CliError, json, parseArgs, runCommand, str, withConnection } from './operator';
import { scanLog } from './progress';

const USAGE = `usage: runledger audit verify [--file chain.jsonl] | runledger audit export [--out chain.jsonl] | runledger audit coverage [--json]   ${CONNECTION_USAGE}`;
const CHAIN_SUBJECT = 'rl.log.audit.chain';

/** What each break means, for the operator reading the report. */
const REASONS: Record<string, string> = {
  hash_mismatch: "the entry's content does not match its entry_hash (edited)",
  prev_link_mismatch: "the entry's prev_hash is not the previous entry's hash (an entry before it was replaced, or the chain was spliced)",
  sequence_gap: 'the expected entry is missing (deleted)',
  reordered: 'entries are out of order',
  duplicate: 'an entry appears twice',
};

export function main(args: string[]): Promise<number> {
  return runCommand(async () => {
    const [sub, ...rest] = args;
    const p = parseArgs(rest, { valued: ['file', 'out'], switches: ['json'] }, USAGE);
    if (p.positional.length) throw new CliError(USAGE, 2);
    if (sub === 'verify') return str(p, 'file') ? verifyFile(str(p, 'file')!) : withConnection(p.conn, (nc) => readChain(nc).then((entries) => report(verifyChain(entries), entries[entries.length - 1]?.entry_hash ?? null)));
    if (sub === 'export') return withConnection(p.conn, async (nc) => exportChain(await readChain(nc), str(p, 'out')));
    if (sub === 'coverage') {
      return withConnection(p.conn, async (nc) => {
        const events: CoverageEvent[] = [];
        // Only RunCreated and AuthzDecided need their data; the rest is kept as type and time.
        await scanLog(nc, 'rl.log.run.*', 'coverage ', (e) => events.push({ run_id: e.metadata.stream_id, type: e.type, recorded_at: e.metadata.recorded_at, ...(e.type === 'RunCreated' || e.type === 'AuthzDecided' ? { data: e.data } : {}) }));
        const result = checkAuditCoverage(events, { allowInProgress: true, staleAfter: { now: new Date().toISOString(), ms: Number(process.env.RL_STALE_RUN_MS ?? 15 * 60_000) } });
        if (p.flags.has('json')) return (json(result), result.ok ? 0 : 1);
        if (result.ok) process.stdout.write(`audit coverage OK: ${result.runs_checked} runs, each with its authz decision, outcome and effect audit events (${result.in_progress.length} in progress)\n`);
        else {
          for (const v of result.violations.slice(0, 50)) process.stdout.write(`MISSING ${v.run_id}: ${v.missing}\n`);
          process.stdout.write(`audit coverage INCOMPLETE: ${result.violations.length} missing record(s) over ${result.runs_checked} runs\n`);
        }
        return result.ok ? 0 : 1;
      });
    }
    throw new CliError(USAGE, 2);
  });
}

async function readChain(nc: Parameters<typeof scanLog>[0]): Promise<ChainEntry[]> {
  const entries: ChainEntry[] = [];
  await scanLog(nc, CHAIN_SUBJECT, 'reading chain', (e) => entries.push(e.data as ChainEntry));
  return entries;
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

function exportChain(entries: ChainEntry[], out: string | undefined): number {
  const jsonl = entries.map((e) => `${JSON.stringify(e)}\n`).join('');
  if (out) {
    writeFileSync(out, jsonl);
    process.stderr.write(`exported ${entries.length} audit chain entries to ${out}\n`);
  } else process.stdout.write(jsonl);
  return 0;
}
