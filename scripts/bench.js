#!/usr/bin/env node
/**
 * npm run bench — everything measured side by side in one run, on servers started here (free ports, temp stores):
 *   1. the log alone: raw JetStream appends (awaited, and 256 acks in flight) against our EventLog.append;
 *   2. the same durable 5-step workload (bench/peers/workload.js) on Runledger's request path and on the peers a
 *      user would pick instead — LangGraph.js + PostgresSaver, Restate, DBOS (durable), LangGraph.js + MemorySaver
 *      (in-memory reference) — sequential and at c16, interleaved in rounds, Runledger measured sustained;
 *   3. resident memory per service at rest and after the load; log messages (commits) and messages through
 *      nats-server per request at steady state, Runledger's and its transport floor's (bench/floor.js).
 * Prints ratio lines and the issue's goals (met or by how much not), and writes bench/results.md.
 * Sizes: BENCH_RAW, BENCH_WARMUP (1,500: requests at c16 every system serves, unmeasured, before the rounds), BENCH_ROUNDS
 *   (3), BENCH_SEQ (60), BENCH_C16 (320); BENCH_PEERS=0 measures Runledger alone.
 * `--messages` measures only the messages through nats-server per request, Runledger's and its floor's, by hop (a table
 *   for bench/results.md), and the CPU per request of those 100 requests at c16: message counts do not depend on the
 *   machine's load, so this may run while other work loads it (the rates and CPU of a full run may not).
 * `--scale` measures instead request latency as the log grows to millions of events and the replay rate (bench/scale.js).
 * `--help` prints this text; any other option is a usage error (exit 2).
 */
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
require('./lib/usage').checkScriptArgs(__filename, process.argv.slice(2), { valued: [], switches: ['scale', 'messages'] });
require('./lib/ts-register');
const { randomUUID } = require('node:crypto');
const { connect } = require('@nats-io/transport-node');
const { jetstream, jetstreamManager } = require('@nats-io/jetstream');
const { EventLog, ensureLogStream, aggregateRef } = require('../libs/event-log/src');
const { freePort, startNats, stopProcess } = require('./lib/stack');
const { identityOptions } = require('../libs/messaging/src/nats-identity');
const { ensurePeersInstalled, runRounds, report, inFlight } = require('../bench/side-by-side');
const { startRunledger } = require('../bench/runledger-system');
const { startFloor } = require('../bench/floor');
const { runScale } = require('../bench/scale');
const { countMessages, breakdownLines } = require('../bench/message-count');
const { cpuSeconds } = require('../bench/side-by-side');

/** The analysis written under the measured block (from ANALYSIS_MARKER on): kept as it is when a run rewrites the block. */
const ANALYSIS_MARKER = '<!-- analysis: written by people, kept by npm run bench -->';
function keptAnalysis(file) {
  const existing = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const at = existing.indexOf(ANALYSIS_MARKER);
  return `\n${at >= 0 ? existing.slice(at) : `${ANALYSIS_MARKER}\n`}`;
}

const RAW = Number(process.env.BENCH_RAW ?? 20000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1500);
if (!Number.isInteger(WARMUP) || WARMUP < 0) {
  process.stderr.write(`BENCH_WARMUP must be a whole number of requests (0 for none), got ${JSON.stringify(process.env.BENCH_WARMUP)}\n`);
  process.exit(2);
}
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SEQ = Number(process.env.BENCH_SEQ ?? 60);
const C16 = Number(process.env.BENCH_C16 ?? 320);
const WITH_PEERS = process.env.BENCH_PEERS !== '0';
const payload = new TextEncoder().encode(JSON.stringify({ event: { type: 'ToolCallRecorded', data: { call_id: 'call-1', status: 'ok', result: { task: { task_id: randomUUID(), description: 'benchmark task' } } }, metadata: { event_id: randomUUID(), stream_id: randomUUID(), schema_version: 1, contract_version: 'v1', producer: 'bench', recorded_at: new Date().toISOString() } } }));
const progress = (line) => process.stderr.write(`${line}\n`);
const fmt = (n) => Math.round(n).toLocaleString('en-US');

async function timed(fn) {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

/** Resident set size of a process in MiB (Linux /proc; 0 elsewhere). */
/**
 * A process's memory from /proc (Linux), in MiB: `rss` counts every page it maps, also those of node's executable
 * that all seven services share (about 45 MiB each); `pss` gives each shared page to its processes in equal parts,
 * so the services' PSS add up to what they take together.
 */
function memoryMiB(pid) {
  try {
    const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kib = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? 0);
    return { rss: kib('Rss') / 1024, pss: kib('Pss') / 1024 };
  } catch {
    return { rss: 0, pss: 0 };
  }
}

/** `memory` per service as "name N MiB" for one of its measures. */
const memoryLine = (memory, measure) => Object.entries(memory).map(([n, m]) => `${n} ${m[measure].toFixed(0)} MiB`).join(', ');

async function measureLog(js, jsm) {
  await jsm.streams.add({ name: 'BENCH_RAW', subjects: ['bench.raw.>'], storage: 'file' });
  const awaitedN = Math.min(RAW, 5000);
  const rawAwaited = awaitedN / (await timed(async () => {
    for (let i = 0; i < awaitedN; i++) await js.publish(`bench.raw.a.${i % 100}`, payload);
  }));
  const rawInFlight = RAW / (await timed(() => inFlight(RAW, 256, (i) => js.publish(`bench.raw.b.${i % 100}`, payload))));
  // Our path: idempotent (msgID) and serialised per aggregate (expected version), many aggregates at once.
  const log = new EventLog(js, jsm, { producer: 'bench', clock: { now: () => new Date() } });
  // Aggregates of a kind of their own: events on `rl.log.run.<id>` (the release-c732176 run subject) would make the
  // log read as one with legacy runs, and every run lookup of the measured systems take the legacy path after.
  const aggregates = Array.from({ length: 256 }, () => ({ ref: aggregateRef('bench', randomUUID()), version: 0 }));
  const data = JSON.parse(new TextDecoder().decode(payload)).event.data;
  const ours = RAW / (await timed(() => inFlight(RAW, 256, async (i) => {
    const agg = aggregates[i % aggregates.length];
    agg.version = (await log.append(agg.ref, [{ type: 'ToolCallRecorded', data }], { commandId: `bench-${i}`, expectedVersion: agg.version })).version;
  })));
  await jsm.streams.delete('BENCH_RAW');
  return [
    `raw JetStream append, awaited one at a time : ${fmt(rawAwaited)} events/s (${awaitedN} events)`,
    `raw JetStream append, 256 acks in flight    : ${fmt(rawInFlight)} events/s (${RAW} events)`,
    `Runledger EventLog.append, 256 in flight    : ${fmt(ours)} events/s (msgID + expected version per aggregate)`,
    `ratio: Runledger append rate / raw in-flight rate = ${(ours / rawInFlight).toFixed(2)}`,
  ];
}

/** Starts the peers on their own PostgreSQL cluster; each gets a database of its own. */
async function startPeers(cleanup) {
  ensurePeersInstalled();
  const { startPostgresCluster, DURABILITY } = require('../bench/peers/postgres-cluster');
  const { startLangGraph } = require('../bench/peers/langgraph');
  const { startRestate } = require('../bench/peers/restate');
  const { startDbos } = require('../bench/peers/dbos');
  const pg = await startPostgresCluster(await freePort());
  cleanup.push(Object.assign(() => pg.stop(), { label: 'PostgreSQL' }));
  const peers = [];
  const add = async (key, name, durable, start) => {
    const system = await start(await pg.createDatabase(`bench_${key}`));
    cleanup.push(Object.assign(() => system.stop(), { label: name }));
    peers.push({ key, name, durable, ...system, run: system.run, settle: undefined, pids: undefined });
  };
  await add('langgraph_pg', 'LangGraph.js + PostgresSaver', true, (url) => startLangGraph({ mode: 'postgres', databaseUrl: url }));
  await add('restate', 'Restate', true, (url) => startRestate({ databaseUrl: url, freePort }));
  await add('dbos', 'DBOS', true, (url) => startDbos({ databaseUrl: url }));
  await add('langgraph_mem', 'LangGraph.js + MemorySaver (in memory)', false, () => startLangGraph({ mode: 'memory' }));
  return { peers, durability: DURABILITY };
}

async function main() {
  const store = fs.mkdtempSync(path.join(os.tmpdir(), 'runledger-bench-'));
  // Secured like npm start; the benchmark's own client is the admin (it creates its raw stream).
  const nats = await startNats({ port: await freePort(), storeDir: path.join(store, 'nats'), credsDir: path.join(store, 'credentials') });
  const cleanup = [];
  try {
    const nc = await connect({ servers: nats.url, ...identityOptions({ creds: nats.creds.admin.file }) });
    cleanup.push(() => nc.close());
    const js = jetstream(nc);
    const jsm = await jetstreamManager(nc);
    await ensureLogStream(jsm);
    if (process.argv.includes('--scale')) {
      const system = await startRunledger({ nats, nc, jsm });
      cleanup.push(() => system.stop());
      const lines = [`Runledger scale benchmark — ${new Date().toISOString()} — ${os.cpus().length} cores, Node ${process.version}`, ...(await runScale({ system, js, jsm }))];
      process.stdout.write(`${lines.join('\n')}\n`);
      fs.writeFileSync(path.join(__dirname, '..', 'bench', 'results-scale.md'), `# Scale results\n\nProduced by \`npm run bench -- --scale\`.\n\n\`\`\`\n${lines.join('\n')}\n\`\`\`\n`);
      return;
    }
    const messagesOnly = process.argv.includes('--messages');
    const logLines = messagesOnly ? [] : await measureLog(js, jsm);

    const runledger = await startRunledger({ nats, nc, jsm });
    cleanup.push(() => runledger.stop());
    const atRest = Object.fromEntries(runledger.procs.map((p) => [p.name, memoryMiB(p.child.pid)]));
    for (let i = 0; i < 20; i++) await runledger.run({ request_id: `warm-${i}`, user_id: 'bench-warm', message: `add task warm up ${i}` });
    // The 50 users the measured requests come from, each seen once: a user's first request creates and spreads their
    // data key (~9 more messages per request while users are new), which is no steady state.
    await inFlight(50, 16, (i) => runledger.run({ request_id: `warm-user-${i}`, user_id: `bench-user-${i}`, message: `add task warm up user ${i}` }));
    await runledger.settle();
    const before = await runledger.logMessages();
    // 100 requests at c16 after the warm-up, counted until the ledger has chained them (steady state).
    const cpu = {};
    const steady = async (system, prefix) => {
      const before = system.pids().map((pid) => cpuSeconds([pid]));
      const counted = await countMessages(nats, async () => {
        await inFlight(100, 16, (i) => system.run({ request_id: `${prefix}-${i}`, user_id: `bench-user-${i % 50}`, message: `add task steady ${i}` }));
        await system.settle();
      });
      const used = system.pids().map((pid, i) => ((cpuSeconds([pid]) - before[i]) * 1000) / 100);
      cpu[prefix] = `${used.reduce((a, b) => a + b, 0).toFixed(1)} ms (${system.processNames().map((n, i) => `${n} ${used[i].toFixed(1)}`).join(', ')})`;
      return counted;
    };
    const counted = { runledger: await steady(runledger, 'steady') };
    const messagesPerRequest = { runledger: counted.runledger.total / 100 };
    const commitsPerRequest = ((await runledger.logMessages()) - before) / 100;

    const floor = await startFloor({ nats, nc, jsm });
    cleanup.push(() => floor.stop());
    await floor.settle();
    counted.floor = await steady(floor, 'floor-steady');
    messagesPerRequest.floor = counted.floor.total / 100;
    if (messagesOnly) {
      process.stdout.write([
        `Runledger messages per request — ${new Date().toISOString()} — 100 requests at c16 after the warm-up, counted until the ledger has chained them`,
        `log messages (commits) appended per request: ${commitsPerRequest.toFixed(1)}`,
        `CPU per request of these 100 (the machine's load included): Runledger ${cpu.steady}; Transport floor ${cpu['floor-steady']}`,
        '', 'Runledger:', ...breakdownLines(counted.runledger, 100), '', 'Transport floor:', ...breakdownLines(counted.floor, 100), '',
      ].join('\n'));
      return;
    }
    const systems = [
      { key: 'runledger', name: 'Runledger (sustained)', durable: true, ...runledger },
      { key: 'floor', name: 'Transport floor (sustained)', reference: true, durable: false, ...floor },
    ];
    let durability = 'JetStream file store, default flush';
    if (WITH_PEERS) {
      const started = await startPeers(cleanup);
      systems.push(...started.peers);
      durability = started.durability;
    }
    const results = await runRounds(systems, { rounds: ROUNDS, seqCount: SEQ, c16Count: C16, warmup: WARMUP, onProgress: progress });
    const after = Object.fromEntries(runledger.procs.map((p) => [p.name, memoryMiB(p.child.pid)]));
    const floorAfter = Object.fromEntries(floor.procs.map((p) => [p.name, memoryMiB(p.child.pid)]));
    const largest = (measure) => Math.max(...[...Object.values(atRest), ...Object.values(after)].map((m) => m[measure]));

    const lines = [
      `Runledger benchmark — ${new Date().toISOString()} — ${os.cpus().length} cores, Node ${process.version}, load average at start ${os.loadavg()[0].toFixed(2)}`,
      ...logLines,
      `workload on every system: classify (deterministic fake model) → decide → tool call → governed write → audit; ${ROUNDS} interleaved rounds of ${SEQ} sequential and ${C16} at c16, after ${WARMUP} at c16 and ${SEQ} sequential unmeasured on each`,
      `durability: ${durability}`,
      ...report(systems, results, { messagesPerRequest }),
      `log messages (commits) appended per request at steady state: ${commitsPerRequest.toFixed(1)}`,
      `messages through nats-server per request at steady state: ${messagesPerRequest.runledger.toFixed(1)} (Runledger), ${messagesPerRequest.floor.toFixed(1)} (Transport floor)`,
      `memory at rest (resident, RSS): ${memoryLine(atRest, 'rss')}`,
      `memory at rest (proportional, PSS: shared pages such as node's executable split among the processes mapping them): ${memoryLine(atRest, 'pss')}`,
      `memory after the load (RSS): ${memoryLine(after, 'rss')}; nats-server ${memoryMiB(nats.child.pid).rss.toFixed(0)} MiB`,
      `memory after the load (PSS): ${memoryLine(after, 'pss')}`,
      `memory of the transport floor's bare processes (node + the NATS client, the same heap flags) after the load: RSS ${memoryLine(floorAfter, 'rss')}; PSS ${memoryLine(floorAfter, 'pss')}`,
      `goal: each service ≤ 80 MiB resident: ${largest('rss') <= 80 ? 'met' : `not met as RSS (largest ${largest('rss').toFixed(0)} MiB)`}; as PSS ${largest('pss') <= 80 ? 'met' : 'not met'} (largest ${largest('pss').toFixed(0)} MiB)`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    const byHop = ['', '## Messages through nats-server per request, by hop', '', '100 requests at c16 after the warm-up, counted until the ledger has chained them (`npm run bench -- --messages` measures only these).', '', '### Runledger', '', ...breakdownLines(counted.runledger, 100), '', '### Transport floor', '', ...breakdownLines(counted.floor, 100)];
    const resultsFile = path.join(__dirname, '..', 'bench', 'results.md');
    fs.writeFileSync(resultsFile, `# Benchmark results\n\nProduced by \`npm run bench\` (one run; every system on this machine, side by side).\n\n\`\`\`\n${lines.join('\n')}\n\`\`\`\n${byHop.join('\n')}\n${keptAnalysis(resultsFile)}`);
  } finally {
    // Each stop is bounded: a peer whose client pool never drains (seen once with a PostgreSQL peer) must not keep
    // the bench, the services and the servers after it running. Stopping the peers' PostgreSQL then ends the
    // connections such a pool still holds, and pg reports that on the client as an error nobody listens to.
    process.on('uncaughtException', ignorePostgresShutdown);
    for (const fn of cleanup.reverse()) {
      if (!(await atMost(STOP_MS, Promise.resolve().then(fn)))) process.stderr.write(`a clean-up step (${fn.label ?? 'unnamed'}) did not finish in ${STOP_MS / 1000} s; going on\n`);
    }
    await stopProcess(nats.child);
    fs.rmSync(store, { recursive: true, force: true });
  }
}

/** PostgreSQL's "terminating connection due to administrator command" (57P01) is expected while the bench stops it. */
function ignorePostgresShutdown(err) {
  if (err?.code === '57P01') return;
  process.stderr.write(`bench failed while stopping: ${err?.stack || err}\n`);
  process.exit(1);
}

/** How long one clean-up step may take before the bench moves on to the next. */
const STOP_MS = 20_000;

/** Waits for `p` (whatever its outcome) but no longer than `ms`; true when it settled in time. */
async function atMost(ms, p) {
  let timer;
  const settled = await Promise.race([p.then(() => true, () => true), new Promise((resolve) => (timer = setTimeout(() => resolve(false), ms)))]);
  clearTimeout(timer);
  return settled;
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench failed: ${err.stack || err}\n`);
    process.exit(1);
  },
);

