#!/usr/bin/env node
/**
 * npm run bench — measured in one run against one nats-server (started here, on a free port, temp store):
 *   raw JetStream appends: awaited one at a time, and with 256 acks in flight
 *   Runledger's EventLog.append (msgID + per-aggregate optimistic concurrency), 256 in flight
 *   end-to-end agent requests through the seven services: rate, p50/p99 latency, events appended per request
 * Prints ratios and writes bench/results.md. Sizes: BENCH_RAW=N, BENCH_REQUESTS=N, BENCH_CONCURRENCY=N.
 */
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
process.env.SWC_NODE_PROJECT ??= path.join(__dirname, '..', 'tsconfig.json');
require('@swc-node/register');
const { randomUUID } = require('node:crypto');
const { connect } = require('@nats-io/transport-node');
const { jetstream, jetstreamManager } = require('@nats-io/jetstream');
const { EventLog, ensureLogStream, aggregateRef, LOG_STREAM } = require('../libs/event-log/src');
const { freePort, startNats, runBootstrap, startService, stopProcess, SERVICES } = require('./lib/stack');
const { identityOptions } = require('../libs/messaging/src/nats-identity');

const RAW = Number(process.env.BENCH_RAW ?? 20000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 400);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const payload = new TextEncoder().encode(JSON.stringify({ event: { type: 'ToolCallRecorded', data: { call_id: 'call-1', status: 'ok', result: { task: { task_id: randomUUID(), description: 'benchmark task' } } }, metadata: { event_id: randomUUID(), stream_id: randomUUID(), schema_version: 1, contract_version: 'v1', producer: 'bench', recorded_at: new Date().toISOString() } } }));

async function inFlight(total, limit, fn) {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < total) await fn(next++);
  }));
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** Resident set size of a process in MiB (Linux /proc; 0 elsewhere). */
function rssMiB(pid) {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    return kb / 1024;
  } catch {
    return 0;
  }
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const fmt = (n) => Math.round(n).toLocaleString('en-US');

async function main() {
  const store = fs.mkdtempSync(path.join(os.tmpdir(), 'runledger-bench-'));
  // The benchmark's own client is the admin (it creates its raw stream); services keep their own identities.
  const nats = await startNats({ port: await freePort(), storeDir: path.join(store, 'nats'), credsDir: path.join(store, 'credentials') });
  const procs = [];
  try {
    const nc = await connect({ servers: nats.url, ...identityOptions({ creds: nats.creds.admin.file, inboxPrefix: nats.creds.admin.inboxPrefix }) });
    const js = jetstream(nc);
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'BENCH_RAW', subjects: ['bench.raw.>'], storage: 'file' });
    await ensureLogStream(jsm);

    const awaitedN = Math.min(RAW, 5000);
    let t0 = process.hrtime.bigint();
    for (let i = 0; i < awaitedN; i++) await js.publish(`bench.raw.a.${i % 100}`, payload);
    const rawAwaited = awaitedN / (Number(process.hrtime.bigint() - t0) / 1e9);
    const rawInFlight = RAW / (await inFlight(RAW, 256, (i) => js.publish(`bench.raw.b.${i % 100}`, payload)));

    // Our path: idempotent (msgID) and serialised per aggregate (expected version), many aggregates at once.
    const log = new EventLog(js, jsm, { producer: 'bench', clock: { now: () => new Date() } });
    const aggregates = Array.from({ length: 256 }, () => ({ ref: aggregateRef('run', randomUUID()), version: 0 }));
    const data = JSON.parse(new TextDecoder().decode(payload)).event.data;
    const ours = RAW / (await inFlight(RAW, 256, async (i) => {
      const agg = aggregates[i % aggregates.length];
      const r = await log.append(agg.ref, [{ type: 'ToolCallRecorded', data }], { commandId: `bench-${i}`, expectedVersion: agg.version });
      agg.version = r.version;
    }));

    // Peer: the same append semantics on PostgreSQL (skipped when no server answers).
    let peer = null;
    try {
      const { openPostgresPeer } = require('../bench/peers/postgres-event-store');
      const pg = await openPostgresPeer();
      const streams = Array.from({ length: 256 }, () => ({ id: randomUUID(), version: 0 }));
      const seconds = await inFlight(RAW, 16, async (i) => {
        const st = streams[i % streams.length];
        st.version = await pg.append(st.id, st.version, randomUUID(), 'ToolCallRecorded', data);
      });
      peer = RAW / seconds;
      await pg.close();
    } catch (err) {
      process.stderr.write(`postgres peer skipped: ${err.message}\n`);
    }

    // End to end: the real services as separate processes.
    await runBootstrap({ natsUrl: nats.url, creds: nats.creds });
    for (const name of SERVICES) procs.push(startService(name, { natsUrl: nats.url, creds: nats.creds, env: { LOG_LEVEL: 'error' } }));
    await Promise.all(procs.map((p) => p.ready));
    const ask = (i) => nc.request('agents.task-assistant.process', JSON.stringify({ user_id: `bench-${i % 50}`, conversation_id: randomUUID(), message: `add task benchmark item ${i}` }), { timeout: 30000 });
    for (let i = 0; i < 20; i++) await ask(-1 - i); // warm-up
    const before = (await jsm.streams.info(LOG_STREAM)).state.messages;
    const latencies = [];
    const e2eSeconds = await inFlight(REQUESTS, CONCURRENCY, async (i) => {
      const s = process.hrtime.bigint();
      await ask(i);
      latencies.push(Number(process.hrtime.bigint() - s) / 1e6);
    });
    // The audit chain is written asynchronously; count the request's own events only once it caught up.
    await new Promise((r) => setTimeout(r, 1500));
    const rss = Object.fromEntries(procs.map((p) => [p.name, rssMiB(p.child.pid)]));
    const natsRss = rssMiB(nats.child.pid);
    const after = (await jsm.streams.info(LOG_STREAM)).state.messages;
    latencies.sort((a, b) => a - b);
    const e2eRate = REQUESTS / e2eSeconds;
    const eventsPerRequest = (after - before) / REQUESTS;
    await nc.close();

    const lines = [
      `Runledger benchmark — ${new Date().toISOString()} — ${os.cpus().length} cores, Node ${process.version}, nats-server at ${nats.url}`,
      `raw JetStream append, awaited one at a time : ${fmt(rawAwaited)} events/s (${awaitedN} events)`,
      `raw JetStream append, 256 acks in flight    : ${fmt(rawInFlight)} events/s (${RAW} events)`,
      `Runledger EventLog.append, 256 in flight    : ${fmt(ours)} events/s (msgID + expected version per aggregate)`,
      `agent requests end to end (${CONCURRENCY} concurrent) : ${e2eRate.toFixed(1)} requests/s, p50 ${latencies.length ? pct(latencies, 50).toFixed(1) : '-'} ms, p99 ${latencies.length ? pct(latencies, 99).toFixed(1) : '-'} ms (${REQUESTS} requests)`,
      `events appended per request (run, child runs, conversation, audit chain) : ${eventsPerRequest.toFixed(1)}`,
      `memory after the load (resident): ${Object.entries(rss).map(([n, m]) => `${n} ${m.toFixed(0)} MiB`).join(', ')}; nats-server ${natsRss.toFixed(0)} MiB`,
      `ratio: memory of the seven services / nats-server = ${(Object.values(rss).reduce((a, b) => a + b, 0) / natsRss).toFixed(1)}`,
      ...(peer ? [`peer: PostgreSQL event store append, 16 connections : ${fmt(peer)} events/s (same guarantees: idempotent id, version per stream)`] : []),
      `ratio: Runledger append rate / raw in-flight rate = ${(ours / rawInFlight).toFixed(2)}`,
      ...(peer ? [`ratio: Runledger append rate / PostgreSQL peer append rate = ${(ours / peer).toFixed(2)}`] : []),
      `ratio: log events per second implied by end-to-end requests / raw in-flight rate = ${((e2eRate * eventsPerRequest) / rawInFlight).toFixed(2)}`,
    ];
    process.stdout.write(lines.join('\n') + '\n');
    fs.mkdirSync(path.join(__dirname, '..', 'bench'), { recursive: true });
    fs.writeFileSync(path.join(__dirname, '..', 'bench', 'results.md'), `# Benchmark results\n\nProduced by \`npm run bench\` (one run, one server).\n\n\`\`\`\n${lines.join('\n')}\n\`\`\`\n`);
  } finally {
    await Promise.all(procs.map((p) => stopProcess(p.child)));
    await stopProcess(nats.child);
    fs.rmSync(store, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err.stack || err}\n`);
  process.exit(1);
});
