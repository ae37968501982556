/**
 * runledger audit — operator commands for the tamper-evident audit ledger.
 *
 *   runledger audit verify                  ask the running stack (rl.audit.verify) to re-verify the whole chain:
 *                                           links, signed checkpoints, the ledger's outside anchor, completeness
 *   runledger audit verify --file F.jsonl [--public-key K.pem] [--head H.json]
 *                                           verify an exported copy offline (no stack needed); signatures are
 *                                           checked against the pinned public key (--public-key, else
 *                                           RL_AUDIT_PUBLIC_KEY_FILE, else the key beside RL_AUDIT_KEY_FILE);
 *                                           --head (a signed checkpoint: `audit head` output or an export
 *                                           manifest) also catches a copy whose tail was cut
 *   runledger audit export [--out F.jsonl]  write the chain as JSON lines, one ChainEntry per line (stdout without --out)
 *   runledger audit verify --anchor W.json  also check the live log and chain against a witness copy of the anchor
 *                                           (`audit anchor export`): a log deleted and created again, or cut, fails
 *                                           even when the ledger's own anchor file was removed with it
 *   runledger audit head [--out H.json]     the signed checkpoint of the chain's head (rl.audit.head), with the key
 *   runledger audit anchor export [--out W.json]
 *                                           a witness copy of the anchor to keep outside the cluster: the signed head,
 *                                           the key that signed it, and the identity of the log (stream, creation
 *                                           time, first message) it was taken of
 *   runledger audit coverage [--json]       contract 001 §6 over every run, read from the log with a progress bar
 *
 * Exit codes: 0 chain intact, 1 chain broken, 2 usage or unreadable input, 3 the stack cannot be reached.
 * The export reads the log subject rl.log.audit.chain directly (the audit-ledger is its only writer), so a
 * copy can be taken, archived and verified later even when the ledger service is down.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { aggregateRef, EventLog, LOG_STREAM, logIdentityOf } from '@runledger/event-log';
import { AnchoredVerification, ChainCheckpoint, ChainEntry, chainEntriesOf, checkAuditCoverage, checkLogIdentity, CoverageEvent, LogAnchor, LogIdentity, type SignatureCheck, verifyAnchoredChain } from '@runledger/governance';
// Deep imports on purpose: the packages' indexes also load the DTOs and Nest, which an operator command
// does not need (they want reflect-metadata and add seconds to every start).
import type { AuditVerification } from '../../libs/contracts/src/generated';
import { LOG_KINDS, SUBJECTS } from '../../libs/contracts/src/subjects';
import { auditKeyFile, ed25519PublicKey, publicKeyFileOf, trustedKeys } from '../../libs/messaging/src/audit-keys';
import { decodeReply, encodeJson } from '../../libs/messaging/src/codec';
import { CliConnectionFlags, CONNECTION_USAGE, unansweredRequest } from './connection';
import { printable, terminalJson } from './format';
import { checkCombinations, checkConnection, CliError, fileProblem, inputPath, outputPath, parseArgs, type ParsedArgs, runCommand, unknownCommand, withConnection } from './operator';
import { scanLog } from './progress';
import { servedRunEvents, type OwnedEvent } from '../../libs/runs/src/domain/run-ownership';

export const USAGE = `usage: runledger audit verify [--anchor witness.json | --file chain.jsonl [--public-key key.pem] [--head head.json]] [--json]
       runledger audit export [--out chain.jsonl]      (stdout without --out)
       runledger audit head [--out head.json]
       runledger audit anchor export [--out witness.json]
       runledger audit coverage [--json]
       ${CONNECTION_USAGE}
exit codes: 0 chain intact (coverage: nothing missing), 1 chain broken (coverage: a run misses a record) or the stack
refused the request (its error code is printed), 2 usage or unreadable input, 3 the stack cannot be reached or refused
this identity`;
const CHAIN_SUBJECT = aggregateRef(LOG_KINDS.audit, 'chain');

/** What each break means, for the operator reading the report. */
const REASONS: Record<string, string> = {
  hash_mismatch: "the entry's content does not match its entry_hash (edited)",
  prev_link_mismatch: "the entry's prev_hash is not the previous entry's hash (an entry before it was replaced, or the chain was spliced)",
  sequence_gap: 'the expected entry is missing (deleted)',
  reordered: 'entries are out of order',
  duplicate: 'an entry appears twice',
  signature_invalid: 'a signed checkpoint does not match the chain (edited and rehashed, or signed by an untrusted key)',
  unanchored_tail: 'entries after the last signed checkpoint (appended by someone without the signing key)',
  truncated: 'the chain ends before a signed head it once had (its tail was cut)',
  missing_event: 'an audit-relevant event of the log is not in the chain',
  event_mismatch: "the chain's digest of an event differs from the log's",
  damaged_message: 'a stored message of the log was edited or removed in the store',
  forged_run: "events under a run id that the run's owner did not write (issue 23: a run created outside its owner's rights, or an event whose producer is not the subject's owner)",
  log_replaced: 'the log is not the one the signed head was taken of (deleted and created again, with part or none of its messages, or cut from its start)',
};

/** Each subcommand's options; the checks of their values and combinations are auditArgs's, before anything connects. */
const SPEC = {
  verify: { valued: ['anchor', 'file', 'public-key', 'head'], switches: ['json'] },
  export: { valued: ['out'], switches: [] },
  head: { valued: ['out'], switches: [] },
  'anchor export': { valued: ['out'], switches: [] },
  coverage: { valued: [], switches: ['json'] },
} as const;
type Sub = keyof typeof SPEC;

/**
 * A subcommand and its arguments, checked before connecting (exit 2, the error then the usage): options the usage
 * does not allow together (`--head needs --file`, `--anchor does not go with --file`), a file to read that does not
 * exist or cannot be read, an --out whose folder does not exist or cannot be written.
 */
export function auditArgs(args: string[]): { sub: Sub; p: ParsedArgs; opts: Options } {
  const [first, ...rest] = args;
  const sub = first === 'anchor' && rest[0] === 'export' ? 'anchor export' : first;
  if (sub === undefined || !(sub in SPEC)) throw unknownCommand(first === 'anchor' && rest[0] !== undefined ? `anchor ${rest[0]}` : first, USAGE);
  // Connection settings are checked only for what connects: `verify --file` is offline (an auditor with no stack).
  const p = parseArgs(sub === 'anchor export' ? rest.slice(1) : rest, SPEC[sub as Sub], USAGE, { connects: false });
  if (p.positional.length) throw new CliError(`unexpected argument ${p.positional[0]}\n${USAGE}`, 2);
  checkCombinations(p, USAGE, [
    { option: 'public-key', needs: 'file', why: "it checks an exported copy's signatures; a live verify uses the ledger's keys" },
    { option: 'head', needs: 'file', why: 'it checks an exported copy; a live verify checks the ledger\'s own head, and --anchor witness.json against a witness' },
    { option: 'anchor', not: 'file', why: 'it checks the live log; for an exported copy give the witness as --head witness.json --public-key witness.json' },
  ]);
  const opts: Options = {
    file: inputPath(p, 'file', USAGE), publicKey: inputPath(p, 'public-key', USAGE), head: inputPath(p, 'head', USAGE), anchor: inputPath(p, 'anchor', USAGE),
    out: outputPath(p, 'out', USAGE), json: p.flags.has('json'),
  };
  if (!(sub === 'verify' && opts.file)) checkConnection(p.conn, USAGE);
  return { sub: sub as Sub, p, opts };
}

export function main(args: string[]): Promise<number> {
  return runCommand(async () => {
    const { sub, p, opts } = auditArgs(args);
    if (sub === 'coverage') return await coverage(p.conn, opts.json);
    if (sub === 'anchor export') return await exportAnchor(opts.out, p.conn);
    if (sub === 'verify') return opts.file ? verifyFile({ ...opts, file: opts.file }) : await verifyLive(p.conn, opts.anchor, opts.json);
    if (sub === 'export') return await exportChain(opts.out, p.conn);
    return await head(opts.out, p.conn);
  });
}

interface Options {
  file?: string;
  out?: string;
  publicKey?: string;
  head?: string;
  anchor?: string;
  json?: boolean;
}

/**
 * What an unsigned tail means in an exported copy: the ledger ends every batch with a signed checkpoint, so an intact
 * export ends at one; entries after it are a copy cut inside a batch or entries appended without the key.
 */
const COPY_REASONS: Record<string, string> = {
  unanchored_tail: 'the copy ends after its last signed checkpoint: it was truncated inside a batch (an intact export ends at a signed checkpoint), or entries were appended by someone without the signing key; --head with a witness or `audit head` output tells which',
};

/** What rl.audit.verify adds to a verdict: messages of the log no writer made (skipped by every reader, not a break). */
type LiveVerdict = AnchoredVerification & Pick<AuditVerification, 'foreign_messages'>;

/**
 * Prints the verdict in the documented one-line form (`json`: the verdict itself, for scripts); returns the exit code.
 * `copy`: the verdict is an exported file's.
 */
export function report(result: LiveVerdict, copy = false, json = false): number {
  if (json) {
    process.stdout.write(`${terminalJson(result, 2)}\n`);
    return result.ok ? 0 : 1;
  }
  const foreign = result.foreign_messages;
  if (foreign?.count) {
    const named = foreign.first.map((f) => `log message ${f.log_seq} ${printable(f.why)}`).join('; ');
    const more = foreign.count > foreign.first.length ? `; ${foreign.count - foreign.first.length} more` : '';
    process.stdout.write(`${foreign.count} log message(s) no Runledger writer made, skipped by every reader (the server stored each as the answer to a request that named its subject as the reply subject): ${named}${more}\n`);
  }
  if (result.ok) {
    process.stdout.write(`audit chain OK: ${result.length} entries, head ${result.head_hash ?? 'none'}\n`);
    if (result.checkpoint) process.stdout.write(`signed checkpoint at entry ${result.checkpoint.seq} by key ${result.checkpoint.key_id}\n`);
    return 0;
  }
  const detail = result.detail ? ` (${printable(result.detail)})` : '';
  if (result.log_seq !== undefined) {
    process.stdout.write(`audit log BROKEN at log message ${result.log_seq}: ${result.reason} — ${REASONS[result.reason] ?? 'see the message'}${detail}\n`);
    return 1;
  }
  const reason = (copy ? COPY_REASONS[result.reason] : undefined) ?? REASONS[result.reason] ?? 'see the entry';
  process.stdout.write(`audit chain BROKEN at entry ${result.first_broken_seq}: ${result.reason} — ${reason}${detail}\n`);
  return 1;
}

/** One request to the audit-ledger; a missing or failed answer exits 3 (the stack, not the chain, is the problem). */
function askLedger(subject: string, flags: CliConnectionFlags, timeout: number): Promise<unknown> {
  return withConnection(flags, async (nc) => {
    const msg = await nc.request(subject, encodeJson({}), { timeout }).catch((err: Error) => {
      throw new CliError(unansweredRequest(subject, err, nc, 'the audit-ledger'), 3);
    });
    const reply = decodeReply(msg.data, msg.headers);
    if (!reply.ok) throw new CliError(`${subject} failed: ${reply.error.code} ${reply.error.message}`, 1);
    return reply.body;
  });
}

/**
 * No fixed limit: a long chain takes as long as it takes, and the operator sees the time go by. With a witness
 * (`--anchor`), the log and its chain are also checked here against it: the ledger's own anchor sits in the cluster,
 * where whoever can recreate the log may remove it too.
 */
async function verifyLive(flags: CliConnectionFlags, witnessFile?: string, json = false): Promise<number> {
  const witness = witnessFile ? readWitness(witnessFile) : null;
  const started = Date.now();
  const ticker = setInterval(() => process.stderr.write(`verifying the audit chain on the audit-ledger… ${Math.round((Date.now() - started) / 1_000)} s\n`), 5_000);
  let verdict: LiveVerdict;
  try {
    verdict = (await askLedger(SUBJECTS.auditVerify, flags, NO_LIMIT_MS)) as LiveVerdict;
  } finally {
    clearInterval(ticker);
  }
  if (!verdict.ok || !witness) return report(verdict, false, json);
  return withConnection(flags, async (nc) => {
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(LOG_STREAM);
    const replaced = checkLogIdentity(witness, logIdentityOf(info));
    if (replaced) return report(replaced, false, json);
    const log = new EventLog(jetstream(nc), jsm, { producer: 'runledger-cli', clock: { now: () => new Date() } });
    const entries = chainEntriesOf(await log.read(CHAIN_SUBJECT));
    return report({ ...verifyAnchoredChain(entries, { check: trustedKeys([witness.public_key_pem]), anchor: witness.checkpoint }), foreign_messages: verdict.foreign_messages }, false, json);
  });
}

/** What `audit anchor export` writes: the anchor and the key it is checked with (the operator keeps it outside the cluster). */
interface Witness extends LogAnchor {
  statement: 'runledger.audit.witness.v1';
  key_id: string;
  public_key_pem: string;
  exported_at: string;
}

function readWitness(file: string): Witness {
  let w: Partial<Witness> | undefined;
  try {
    w = JSON.parse(readText(file)) as Partial<Witness>;
  } catch {
    /* reported below */
  }
  if (!(w?.statement === 'runledger.audit.witness.v1' && w.log && w.checkpoint && w.public_key_pem)) throw new CliError(`${file} is not a witness copy of the anchor (runledger audit anchor export)`, 2);
  if (!ed25519PublicKey(w.public_key_pem)) throw new CliError(`${file}: its public_key_pem is not an Ed25519 public key (the chain is signed with nothing else)`, 2);
  return w as Witness;
}

async function exportAnchor(out: string | undefined, flags: CliConnectionFlags): Promise<number> {
  const head = (await askLedger(SUBJECTS.auditHead, flags, 30_000)) as { checkpoint: ChainCheckpoint | null; key_id: string; public_key_pem: string };
  if (!head.checkpoint) throw new CliError('the chain has no signed head yet: nothing to witness', 1);
  const log: LogIdentity = await withConnection(flags, async (nc) => logIdentityOf(await (await jetstreamManager(nc)).streams.info(LOG_STREAM)));
  const witness: Witness = { statement: 'runledger.audit.witness.v1', log, checkpoint: head.checkpoint, key_id: head.key_id, public_key_pem: head.public_key_pem, exported_at: new Date().toISOString() };
  const json = `${JSON.stringify(witness, null, 2)}\n`;
  if (out) writeOut(out, json, 0o600);
  else process.stdout.write(json);
  return 0;
}

const NO_LIMIT_MS = 24 * 3_600_000;

/** Contract 001 §6 over every run: read from the log here, with a progress bar, so no request can time out. */
async function coverage(flags: CliConnectionFlags, asJson = false): Promise<number> {
  const events: Array<CoverageEvent & OwnedEvent> = [];
  // Only RunCreated and AuthzDecided need their data; the rest is kept as type, time and where it is (owner check).
  await withConnection(flags, (nc) => scanLog(nc, 'rl.log.run.>', 'coverage ', (e) => events.push({ run_id: e.metadata.stream_id, type: e.type, recorded_at: e.metadata.recorded_at, subject: e.subject, seq: e.seq, index: e.index, metadata: { producer: e.metadata.producer }, data: e.type === 'RunCreated' || e.type === 'AuthzDecided' ? e.data : undefined })));
  // Issue 23: a forged run is no run to cover; it is named instead.
  const { served, forgeries } = servedRunEvents(events);
  const covered = checkAuditCoverage(served, { allowInProgress: true, staleAfter: { now: new Date().toISOString(), ms: Number(process.env.RL_STALE_RUN_MS ?? 15 * 60_000) } });
  const result = { ...covered, ok: covered.ok && !forgeries.length, forged: forgeries };
  for (const f of asJson ? [] : forgeries.slice(0, 50)) process.stdout.write(`${printable(`FORGED ${f.run_id}: ${f.reason} (${f.subject}, log message ${f.seq})`)}\n`);
  if (asJson) process.stdout.write(`${terminalJson(result, 2)}\n`);
  else if (forgeries.length) process.stdout.write(`audit coverage FORGED: ${forgeries.length} forged run(s) not covered; ${covered.violations.length} missing record(s) over ${covered.runs_checked} runs\n`);
  else if (result.ok) process.stdout.write(`audit coverage OK: ${result.runs_checked} runs, each with its authz decision, outcome and effect audit events (${result.in_progress.length} in progress)\n`);
  else {
    for (const v of result.violations.slice(0, 50)) process.stdout.write(`${printable(`MISSING ${v.run_id}: ${v.missing}`)}\n`);
    process.stdout.write(`audit coverage INCOMPLETE: ${result.violations.length} missing record(s) over ${result.runs_checked} runs\n`);
  }
  return result.ok ? 0 : 1;
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${fileProblem(err)}`, 2);
  }
}

/** Writes what --out names (checked before connecting); a failure meanwhile is said in words (exit 1), not as Node's text. */
function writeOut(out: string, text: string, mode?: number): void {
  try {
    writeFileSync(out, text, mode === undefined ? undefined : { mode });
  } catch (err) {
    throw new CliError(`cannot write ${out}: ${fileProblem(err)}`, 1);
  }
}

/** The public key to trust: given, from the environment, or the one beside the ledger's key on this machine; `source` names it. */
function trustedKeyPem(opts: Options): { pem: string; source: string } {
  const file = opts.publicKey ?? process.env.RL_AUDIT_PUBLIC_KEY_FILE ?? publicKeyFileOf(auditKeyFile());
  if (!opts.publicKey && !process.env.RL_AUDIT_PUBLIC_KEY_FILE && !existsSync(file)) {
    throw new CliError(`no public key to check the chain's signatures against: give --public-key (the ledger's ${file}, or \`audit head\` output)`, 2);
  }
  const source = `${opts.publicKey ? '--public-key' : process.env.RL_AUDIT_PUBLIC_KEY_FILE ? 'RL_AUDIT_PUBLIC_KEY_FILE' : "the ledger's public key"} ${file}`;
  const text = readText(file);
  // `audit head` output and export manifests carry the key as JSON; a .pem file is the key itself.
  try {
    const parsed = JSON.parse(text) as { public_key_pem?: unknown };
    if (typeof parsed?.public_key_pem === 'string') return { pem: parsed.public_key_pem, source };
  } catch {
    /* not JSON: a PEM file */
  }
  return { pem: text, source };
}

/**
 * The signature check for an exported copy: the trusted key must be an Ed25519 public key (the ledger signs with
 * one); anything else is refused in our words (exit 2), never with the crypto library's error text.
 */
function signatureCheck(opts: Options): SignatureCheck {
  const { pem, source } = trustedKeyPem(opts);
  if (!ed25519PublicKey(pem)) {
    throw new CliError(`${source}: is not an Ed25519 public key: give the ledger's signing-key.pub.pem (a PEM "BEGIN PUBLIC KEY" block) or the JSON \`audit head\` or \`audit anchor export\` writes, which carries it`, 2);
  }
  return trustedKeys([pem]);
}

/** A signed head from `audit head` output ({checkpoint}), an export manifest ({audit_head}) or a bare checkpoint. */
function readHead(file: string): ChainCheckpoint {
  try {
    const parsed = JSON.parse(readText(file)) as { checkpoint?: ChainCheckpoint; audit_head?: ChainCheckpoint } & Partial<ChainCheckpoint>;
    const head = parsed.checkpoint ?? parsed.audit_head ?? (parsed.signature ? (parsed as ChainCheckpoint) : undefined);
    if (head) return head;
  } catch {
    /* reported below */
  }
  throw new CliError(`${file} holds no signed checkpoint`, 2);
}

function verifyFile(opts: Options & { file: string }): number {
  const text = readText(opts.file);
  // An export holds at least one entry (`audit export` refuses a chain that has none): an empty file is no copy of a chain.
  if (text.trim() === '') throw new CliError(`--file ${opts.file}: is empty, not an exported audit chain (runledger audit export writes one JSON entry a line)`, 2);
  const lines = text.split('\n');
  const check = signatureCheck(opts);
  const anchor = opts.head ? readHead(opts.head) : null;
  const entries: ChainEntry[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() === '') continue;
    let entry: ChainEntry;
    try {
      entry = JSON.parse(lines[i]) as ChainEntry;
    } catch {
      // Everything before the unreadable line may still be intact; report the break where it starts.
      const before = verifyAnchoredChain(entries, { check });
      if (!before.ok && before.reason !== 'unanchored_tail') return report(before, true, opts.json);
      const broken = (reason: string, detail: string): number => {
        if (opts.json) return report({ ok: false, first_broken_seq: entries.length + 1, reason, detail } as AnchoredVerification, true, true);
        process.stdout.write(`audit chain BROKEN at entry ${entries.length + 1}: ${reason} — ${detail}\n`);
        return 1;
      };
      // The file ends inside its last line (an export writes whole lines, each ended by a newline): it was cut short.
      if (i === lines.length - 1 && !text.endsWith('\n')) return broken('truncated', `the copy ends inside entry ${entries.length + 1} (its last line, ${i + 1}, is cut off): the export was truncated`);
      return broken('unreadable', `line ${i + 1} is not a JSON chain entry`);
    }
    entries.push(entry);
  }
  return report(verifyAnchoredChain(entries, { check, anchor }), true, opts.json);
}

async function head(out: string | undefined, flags: CliConnectionFlags): Promise<number> {
  const json = `${JSON.stringify(await askLedger(SUBJECTS.auditHead, flags, 30_000), null, 2)}\n`;
  if (out) writeOut(out, json);
  else process.stdout.write(json);
  return 0;
}

function exportChain(out: string | undefined, flags: CliConnectionFlags): Promise<number> {
  return withConnection(flags, async (nc) => {
    const log = new EventLog(jetstream(nc), await jetstreamManager(nc), { producer: 'runledger-cli', clock: { now: () => new Date() } });
    const entries = chainEntriesOf(await log.read(CHAIN_SUBJECT));
    // An empty copy would verify as nothing at all: there is no chain to export yet.
    if (!entries.length) throw new CliError('the audit chain has no entries yet: nothing to export', 1);
    const jsonl = entries.map((e) => `${JSON.stringify(e)}\n`).join('');
    if (out) {
      writeOut(out, jsonl);
      process.stderr.write(`exported ${entries.length} audit chain entries to ${out}\n`);
    } else {
      process.stdout.write(jsonl);
    }
    return 0;
  });
}
