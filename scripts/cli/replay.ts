/**
 * runledger replay — rebuild every projection and read model from the log into a fresh store and compare
 * with the live one; runledger replay --policy DIR — re-decide recorded authorizations under another policy.
 *
 * Exit codes: 0 no differences (or, for --policy, the report was printed), 1 differences, 2 usage (said before
 * connecting), 3 unreachable or refused.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { createDocumentStore, DocumentStore, NatsKvDocumentStore } from '@runledger/document-store';
import { LOG_STREAM } from '@runledger/event-log';
import { CachedDataKeys, DATA_KEYS_BUCKET, KvDataKeyStore } from '../../libs/messaging/src/data-keys';
import { SealingCodec } from '../../libs/messaging/src/sealing';
import { SealedDocumentStore } from '../../libs/messaging/src/sealed-documents';
import { chainEntriesOf, type ChainEntry, isTerminalStatus } from '@runledger/governance';
import { type CliConnectionFlags, CONNECTION_USAGE, ConnectionRefused, notPermitted, refusalText } from './connection';
import { ask, checkCombinations, CliError, intFlag, json, parseArgs, runCommand, withConnection } from './operator';
import { printable } from './format';
import { Progress, scanLog } from './progress';
import { compareDocs, Difference, ModelReport, readAll, withListing, writeAll } from './replay/compare';
import { compareAuditTrails, compareDecisionRecords, withoutTrails } from './replay/audit-trails';
import { Rebuild } from './replay/rebuild';
import { whatIf, whatIfRequest, type WhatIfRequest } from './replay/what-if';

export const USAGE = `usage: runledger replay [--check-runs N] [--catch-up-timeout SECONDS] [--keep-store] [--json]
       runledger replay --policy DIR [--since ISO] [--until ISO] [--json]
       ${CONNECTION_USAGE}
  replay   rebuild every read model from the log into a fresh store and compare it with the live one (as the admin)
           --check-runs N                runs re-checked against rl.runs.get, spread over the log (default 200, 0 for all)
           --catch-up-timeout SECONDS    how long to wait first for the live read models' consumer to catch up
                                         (default 120; 0 compares at once); still behind then, it compares anyway
           --keep-store                  keep the rebuilt store (rl_replay_<id>_* buckets) instead of removing it
  --policy re-decide every recorded authorization under another policy and print the decisions that would change
           --policy DIR                  a folder with lanes.yaml and roles.yaml (validated as a service validates them)
           --since ISO, --until ISO      only decisions recorded in [since, until) (ISO 8601, e.g. 2026-11-24T07:00:00Z;
                                         default: the whole log)
  --json   the report as JSON
exit codes: 0 no differences (--policy: the report was printed), 1 differences, 2 usage (said before connecting),
            3 the stack cannot be reached or this identity may not (a rebuild is the admin's, a what-if an operator's)`;

/** The durable consumers that keep live read models; the comparison waits until they have caught up. */
const LIVE_CONSUMERS = ['audit-ledger'];

export function main(args: string[]): Promise<number> {
  return runCommand(async () => {
    const request = replayArgs(args);
    if (request.kind === 'what-if') return withConnection(request.conn, (nc) => whatIf(nc, request.whatIf));
    // A rebuild creates fresh buckets to compare against: only the bootstrap admin may create buckets.
    return withConnection(request.conn, (nc) => replay(nc, request.rebuild), 'admin');
  });
}

interface RebuildOptions {
  checkRuns: number;
  catchUpTimeoutS: number;
  keepStore: boolean;
  json: boolean;
}

/**
 * The arguments, every value checked before connecting (exit 2, the error then the usage): the counts are whole
 * numbers, the times ISO 8601, the policy a folder holding a valid policy, and no option of the other mode.
 */
export function replayArgs(args: string[]): { kind: 'what-if'; conn: CliConnectionFlags; whatIf: WhatIfRequest } | { kind: 'rebuild'; conn: CliConnectionFlags; rebuild: RebuildOptions } {
  const p = parseArgs(args, { valued: ['check-runs', 'catch-up-timeout', 'policy', 'since', 'until'], switches: ['keep-store', 'json'] }, USAGE);
  if (p.positional.length) throw new CliError(`unexpected argument ${p.positional[0]}\n${USAGE}`, 2);
  const rebuildOnly = 'it is the rebuild\'s; --policy re-decides and rebuilds nothing';
  checkCombinations(p, USAGE, [
    { option: 'since', needs: 'policy', why: 'a rebuild reads the whole log' }, { option: 'until', needs: 'policy', why: 'a rebuild reads the whole log' },
    ...['check-runs', 'catch-up-timeout', 'keep-store'].map((option) => ({ option, not: 'policy', why: rebuildOnly })),
  ]);
  if (p.flags.has('policy')) return { kind: 'what-if', conn: p.conn, whatIf: whatIfRequest(p, USAGE) };
  return {
    kind: 'rebuild', conn: p.conn,
    rebuild: { checkRuns: intFlag(p, 'check-runs', USAGE, 0) ?? 200, catchUpTimeoutS: intFlag(p, 'catch-up-timeout', USAGE, 0) ?? 120, keepStore: p.flags.has('keep-store'), json: p.flags.has('json') },
  };
}

async function waitForConsumers(nc: NatsConnection, timeoutS: number): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const deadline = Date.now() + timeoutS * 1_000;
  const behindNow = async () => {
    const behind: string[] = [];
    for (const durable of LIVE_CONSUMERS) {
      const info = await jsm.consumers.info(LOG_STREAM, durable).catch(() => null);
      if (info && info.num_pending + info.num_ack_pending > 0) behind.push(`${durable} ${info.num_pending + info.num_ack_pending}`);
    }
    return behind;
  };
  // Polled once a second until caught up or the deadline passes.
  let behind = await behindNow();
  while (behind.length && Date.now() < deadline) {
    process.stderr.write(`waiting for live read models to catch up: ${behind.join(', ')} events to go\n`);
    await new Promise((r) => setTimeout(r, 1_000));
    behind = await behindNow();
  }
  if (behind.length) process.stderr.write(`live read models still behind after ${timeoutS} s (${behind.join(', ')} events to go); comparing anyway\n`);
}

/**
 * Refuses at once, in words, an identity that may not rebuild (the operator, a caller): a rebuild opens sealed data with
 * the data keys and writes fresh buckets, which only the bootstrap admin may. Asks for the key bucket's stream info, a
 * read the permissions give only to those who hold keys; without this the first sealed event met, or the first fresh
 * bucket, failed deep into the replay.
 */
async function mayRebuild(nc: NatsConnection): Promise<void> {
  try {
    await nc.request(`$JS.API.STREAM.INFO.KV_${DATA_KEYS_BUCKET}`, '', { timeout: 5_000 });
  } catch (err) {
    const refused = refusalText(err, nc, () => notPermitted(`rebuild the read models (a replay opens sealed data with the data keys, ${DATA_KEYS_BUCKET}, and writes fresh buckets: the bootstrap admin's act; \`replay --policy DIR\` is an operator's)`, 'admin'));
    if (refused === null) throw err;
    throw new ConnectionRefused(refused);
  }
}

async function replay(nc: NatsConnection, opts: RebuildOptions): Promise<number> {
  await mayRebuild(nc);
  await waitForConsumers(nc, opts.catchUpTimeoutS);
  const rebuild = new Rebuild();
  // Sealed personal and case data is opened as services open it; erased data folds as the erased marker.
  const keys = new CachedDataKeys(new KvDataKeyStore(nc));
  const codec = new SealingCodec(keys);
  // Only the admin gets here (mayRebuild): it may create consumers, so the log is read through one (issue 22).
  // An event with nothing sealed (or its keys at hand) opens at once: folded without a promise (a replay reads millions).
  const { horizon, count } = await scanLog(nc, 'rl.log.>', 'replaying', (e) => {
    const opened = codec.open(e);
    return opened instanceof Promise ? opened.then((o) => rebuild.apply(e, o)) : rebuild.apply(e, opened);
  }, { mayCreateConsumers: true });
  const reports: ModelReport[] = [];

  // The rebuilt read models go into a fresh store of the same kind as the live one, and are read back from it.
  const freshName = `rl_replay_${Date.now().toString(36)}_`;
  // Both sides seal and open personal rows as db-write does (README "Erasure"), so they compare as plain documents.
  const fresh: DocumentStore = new SealedDocumentStore(process.env.MONGO_URL
    ? createDocumentStore({ natsConnection: nc, mongoUrl: process.env.MONGO_URL, mongoDb: freshName.replace(/_$/, '') })
    : new NatsKvDocumentStore(nc, { bucketPrefix: freshName }), keys);
  const live = new SealedDocumentStore(createDocumentStore({ natsConnection: nc, mongoUrl: process.env.MONGO_URL }), keys);
  const collections = rebuild.collections();
  try {
    const total = [...collections.values()].reduce((n, docs) => n + docs.size, 0);
    const writing = new Progress('writing  ', total);
    let written = 0;
    for (const [name, docs] of collections) await writeAll(fresh, name, docs, () => writing.update(++written, written));
    writing.finish(total);
    for (const name of collections.keys()) {
      // A runs-index row a consumer folded past the horizon (the log moved on during the replay) is not comparable.
      const skip = name === 'runs_index' ? (doc: Record<string, unknown>) => Number(doc.last_seq) > horizon : undefined;
      let [rebuiltDocs, liveDocs] = await Promise.all([readAll(fresh, name), readAll(live, name)]);
      if (name === 'runs_index') {
        // Issue 22: a row's audit trail is compared as its run's trail (with a data directory's earlier audit_events rows).
        reports.push(compareAuditTrails(rebuild, liveDocs, await readAll(live, 'audit_events'), horizon));
        // A task run's decision audit record too (kept in its row since issue 22, after an earlier `audit_decisions` document).
        reports.push(compareDecisionRecords(rebuild, liveDocs, await readAll(live, 'audit_decisions'), horizon));
        [rebuiltDocs, liveDocs] = [withoutTrails(rebuiltDocs), withoutTrails(liveDocs)];
        // A runs-index row keeps its run's ownership track (issue 23): compared, and whether the run is listed.
        withListing(rebuiltDocs, liveDocs);
      }
      reports.push(compareDocs(name, rebuiltDocs, liveDocs, skip));
    }
  } finally {
    await live.close().catch(() => undefined);
    await fresh.close().catch(() => undefined);
    if (!opts.keepStore && !process.env.MONGO_URL) await dropFresh(nc, freshName, [...collections.keys()]);
  }
  reports.push(await compareChain(nc, rebuild, horizon));
  reports.push(await compareRuns(nc, rebuild, opts.checkRuns));
  // Compared per task run: the context it recorded (live) against the conversation replayed up to it (rebuilt), so both
  // counts are those contexts (the number of conversations replayed is not a count of compared things).
  reports.push({ model: 'conversations (run contexts)', rebuilt: rebuild.contextChecks, live: rebuild.contextChecks, skipped: 0, differences: rebuild.contextMismatches.map((m) => ({ model: 'conversations', id: m.split(':')[0], kind: 'differs' as const, detail: m })) });
  return report(reports, { horizon, events: count, fresh: opts.keepStore ? freshName : null }, opts.json);
}

async function dropFresh(nc: NatsConnection, prefix: string, names: string[]): Promise<void> {
  const jsm = await jetstreamManager(nc);
  await Promise.all(names.map((n) => jsm.streams.delete(`KV_${prefix}${n}`).catch(() => undefined)));
}

/** The audit chain written live against the chain recomputed from the replayed run events. */
async function compareChain(nc: NatsConnection, rebuild: Rebuild, horizon: number): Promise<ModelReport> {
  const live: ChainEntry[] = [];
  await scanLog(nc, 'rl.log.audit.chain', 'chain    ', (e) => live.push(...chainEntriesOf([e])), { mayCreateConsumers: true });
  const comparable = live.filter((e) => Number(e.body.log_seq) <= horizon);
  const differences: Difference[] = [];
  const n = Math.max(comparable.length, rebuild.chain.length);
  for (let i = 0; i < n && differences.length < 100; i++) {
    if (comparable[i]?.entry_hash !== rebuild.chain[i]) {
      differences.push({ model: 'audit chain', id: `entry ${i + 1}`, kind: !comparable[i] ? 'missing in live' : !rebuild.chain[i] ? 'only in live' : 'differs', detail: comparable[i] ? `live ${comparable[i].entry_hash.slice(0, 16)}…, rebuilt ${rebuild.chain[i]?.slice(0, 16) ?? 'none'}…` : undefined });
    }
  }
  return { model: 'audit chain', rebuilt: rebuild.chain.length, live: comparable.length, differences, skipped: live.length - comparable.length };
}

/** Runs, checkpoints and governed runs: the replayed fold against what decision serves (rl.runs.get) for a spread of runs. */
async function compareRuns(nc: NatsConnection, rebuild: Rebuild, limit: number): Promise<ModelReport> {
  const ids = [...rebuild.runs.keys()];
  const step = limit === 0 || ids.length <= limit ? 1 : ids.length / limit;
  const chosen: string[] = [];
  for (let i = 0; i < ids.length && (limit === 0 || chosen.length < limit); i += step) chosen.push(ids[Math.floor(i)]);
  const differences: Difference[] = [];
  const progress = new Progress('runs     ', chosen.length);
  const pick = (s: Record<string, unknown>) => JSON.parse(JSON.stringify({
    status: s.status, run: s.run, authz: s.authz, checkpoint: s.checkpoint, tool_calls: s.tool_calls, child_run_ids: s.child_run_ids,
    output_artifacts: s.output_artifacts, result: s.result, error: s.error, created_at: s.created_at,
  })) as Record<string, unknown>;
  for (const [i, id] of chosen.entries()) {
    const state = rebuild.runs.get(id)!;
    if (state.status === 'none') continue; // events without a RunCreated: rl.runs.get knows no such run either
    const live = await ask<Record<string, unknown>>(nc, 'rl.runs.get', { run_id: id }).catch((err: Error) => ({ __error: err.message }));
    if ('__error' in live) differences.push({ model: 'runs', id, kind: 'missing in live', detail: String(live.__error) });
    else {
      const r = compareDocs('runs', new Map([[id, pick(state as unknown as Record<string, unknown>)]]), new Map([[id, pick(live)]]), (doc) => doc.status !== state.status && !isTerminalStatus(state.status));
      differences.push(...r.differences);
    }
    progress.update(i + 1, i + 1);
  }
  progress.finish(chosen.length);
  return { model: `runs (rl.runs.get, ${chosen.length} of ${ids.length})`, rebuilt: chosen.length, live: chosen.length, differences, skipped: 0 };
}

function report(reports: ModelReport[], meta: { horizon: number; events: number; fresh: string | null }, asJson: boolean): number {
  const differences = reports.flatMap((r) => r.differences);
  if (asJson) {
    json({ ...meta, models: reports, differences: differences.length });
    return differences.length ? 1 : 0;
  }
  process.stdout.write(`replayed ${meta.events} events up to log sequence ${meta.horizon}${meta.fresh ? `; rebuilt store kept as ${meta.fresh}*` : ''}\n`);
  for (const r of reports) {
    const verdict = r.differences.length ? `${r.differences.length} difference(s)` : 'same';
    process.stdout.write(`  ${r.model.padEnd(34)} rebuilt ${String(r.rebuilt).padStart(7)}  live ${String(r.live).padStart(7)}  ${verdict}${r.skipped ? ` (${r.skipped} changed after the horizon, not compared)` : ''}\n`);
  }
  if (!differences.length) {
    process.stdout.write('no differences\n');
    return 0;
  }
  for (const d of differences.slice(0, 50)) process.stdout.write(`${printable(`DIFFERENCE ${d.model} ${d.id}: ${d.kind}${d.detail ? ` — ${d.detail}` : ''}`)}\n`);
  if (differences.length > 50) process.stdout.write(`… and ${differences.length - 50} more (use --json for all)\n`);
  process.stdout.write(`${differences.length} difference(s)\n`);
  return 1;
}
