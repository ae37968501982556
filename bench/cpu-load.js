#!/usr/bin/env node
/**
 * Runledger's CPU per request under load, by process: `node bench/cpu-load.js` starts a secured nats-server and the
 * seven services as `npm run bench` does (bench/runledger-system.js), sends 50 warm-up requests (one per user, so each
 * user's data key exists), then CPU_LOAD_REQUESTS (default 1,000) task-assistant requests at c16, waits until the
 * ledger has chained them, and prints every process's CPU per request (from /proc) and its wake-ups per request
 * (voluntary context switches, all threads). CPU_LOAD_CONCURRENCY (default 16; 1 is the bench's sequential case),
 * CPU_LOAD_WARMUP (more requests at c16 before the measure: V8 is still compiling after the first few hundred),
 * CPU_LOAD_IDLE_MS (first measure every process's CPU at rest for that long: timers, polls, heartbeats),
 * CPU_LOAD_LATENCY_FILE (append each measured request's index, start and latency in ms to that file). With
 * `RL_SERVICE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"` every service writes a V8 CPU profile on exit; node
 * takes a flag's last value, so `RL_SERVICE_NODE_ARGS=--max-semi-space-size=16` overrides the services' heap flag
 * (`RL_SERVICE_NODE_ARGS_AUDIT_LEDGER=…`: one service's only). A `latency` line gives the callers' p50 / p90 / p99 (as
 * the bench's c16 batches compute them) and the load average as the load ends. The last line is every service's memory after the load (PSS and RSS, MiB, from /proc/<pid>/smaps_rollup).
 * Not a comparison with anything: the same harness on two commits says what a change did (bench/results.md).
 */
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
process.env.SWC_NODE_PROJECT ??= path.join(__dirname, '..', 'tsconfig.json');
require('@swc-node/register');
const { connect } = require('@nats-io/transport-node');
const { jetstreamManager } = require('@nats-io/jetstream');
const { ensureLogStream } = require('../libs/event-log/src');
const { freePort, startNats, stopProcess } = require('../scripts/lib/stack');
const { identityOptions } = require('../libs/messaging/src/nats-identity');
const { inFlight, cpuSeconds } = require('./side-by-side');
const { startRunledger } = require('./runledger-system');

/** PSS and RSS of a process in MiB, as scripts/bench.js reads them (that script runs on require, so not shared). */
function memoryMiB(pid) {
  const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kib = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? 0);
  return { rss: kib('Rss') / 1024, pss: kib('Pss') / 1024 };
}

/** Times a process's threads went to sleep waiting (voluntary context switches): one per wake-up, roughly. */
function wakeups(pid) {
  let total = 0;
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      /* thread exited */
    }
  }
  return total;
}

async function main() {
  const n = Number(process.env.CPU_LOAD_REQUESTS ?? 1000);
  // CPU at rest is paid by a sequential request in proportion to its duration: CPU_LOAD_IDLE_MS says how much.
  const concurrency = Number(process.env.CPU_LOAD_CONCURRENCY ?? 16);
  const idleMs = Number(process.env.CPU_LOAD_IDLE_MS ?? 0);
  const warmup = Number(process.env.CPU_LOAD_WARMUP ?? 0);
  const store = fs.mkdtempSync(path.join(os.tmpdir(), 'runledger-cpu-load-'));
  const nats = await startNats({ port: await freePort(), storeDir: path.join(store, 'nats'), credsDir: path.join(store, 'credentials') });
  const nc = await connect({ servers: nats.url, ...identityOptions({ creds: nats.creds.admin.file }) });
  const jsm = await jetstreamManager(nc);
  await ensureLogStream(jsm);
  const runledger = await startRunledger({ nats, nc, jsm });
  try {
    await inFlight(50, 16, (i) => runledger.run({ request_id: `warm-user-${i}`, user_id: `bench-user-${i}`, message: `add task warm up user ${i}` }));
    // CPU_LOAD_WARMUP more requests at c16 before the measure: code V8 has optimized by then (the bench's sequential
    // batches come after 170 to 1,000 requests), apart from what a short run still pays for compiling.
    await inFlight(warmup, 16, (i) => runledger.run({ request_id: `warm-${i}`, user_id: `bench-user-${i % 50}`, message: `add task warm ${i}` }));
    await runledger.settle();
    if (idleMs > 0) {
      const idleBefore = runledger.pids().map((pid) => cpuSeconds([pid]));
      await new Promise((r) => setTimeout(r, idleMs));
      const idle = runledger.pids().map((pid, i) => ((cpuSeconds([pid]) - idleBefore[i]) * 1000) / (idleMs / 1000));
      const byProcess = runledger.processNames().map((name, i) => `${name} ${idle[i].toFixed(2)}`).join(', ');
      process.stdout.write(`at rest for ${idleMs} ms, CPU ms per second ${idle.reduce((a, b) => a + b, 0).toFixed(2)}: ${byProcess}\n`);
    }
    const before = runledger.pids().map((pid) => cpuSeconds([pid]));
    const wakeupsBefore = runledger.pids().map(wakeups);
    // The pids, as the load starts: a profiler of real CPU (`perf record -p`) can attach for exactly the load.
    const pids = runledger.processNames().map((name, i) => `${name}=${runledger.pids()[i]}`).join(' ');
    process.stdout.write(`load starts: ${n} requests at c${concurrency}; pids ${pids}\n`);
    const t0 = Date.now();
    const monotonicStart = process.hrtime.bigint() / 1000n;
    const latencies = [];
    await inFlight(n, concurrency, async (i) => {
      const sent = performance.now();
      await runledger.run({ request_id: `load-${i}`, user_id: `bench-user-${i % 50}`, message: `add task steady ${i}` });
      latencies.push(performance.now() - sent);
      if (process.env.CPU_LOAD_LATENCY_FILE) fs.appendFileSync(process.env.CPU_LOAD_LATENCY_FILE, `${i} ${sent.toFixed(1)} ${(performance.now() - sent).toFixed(1)}\n`);
    });
    const answered = Date.now();
    await runledger.settle();
    const monotonicEnd = process.hrtime.bigint() / 1000n;
    const used = runledger.pids().map((pid, i) => ((cpuSeconds([pid]) - before[i]) * 1000) / n);
    const byProcess = runledger.processNames().map((name, i) => `${name} ${used[i].toFixed(2)}`).join(', ');
    const woke = runledger.pids().map((pid, i) => (wakeups(pid) - wakeupsBefore[i]) / n);
    const elapsed = Date.now() - t0;
    process.stdout.write(`${n} requests at c${concurrency} in ${elapsed} ms (${((n * 1000) / elapsed).toFixed(1)} req/s); CPU per request ${used.reduce((a, b) => a + b, 0).toFixed(2)} ms: ${byProcess}\n`);
    const wokeByProcess = runledger.processNames().map((name, i) => `${name} ${woke[i].toFixed(1)}`).join(', ');
    latencies.sort((a, b) => a - b);
    const pct = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(1);
    // Answered: the rate the callers saw (the ledger's catch-up after the last answer is not in it); p50 / p99 as the bench's.
    process.stdout.write(`latency ms p50 ${pct(0.5)} p90 ${pct(0.9)} p99 ${pct(0.99)} max ${latencies[latencies.length - 1].toFixed(1)}; answered ${((n * 1000) / (answered - t0)).toFixed(1)} req/s; load average ${os.loadavg()[0].toFixed(2)}\n`);
    process.stdout.write(`wake-ups (voluntary context switches, all threads) per request ${woke.reduce((a, b) => a + b, 0).toFixed(1)}: ${wokeByProcess}\n`);
    const memory = runledger.procs.map((p) => ({ name: p.name, ...memoryMiB(p.child.pid) }));
    const pss = memory.map((m) => `${m.name} ${m.pss.toFixed(0)}`).join(', ');
    const rss = memory.map((m) => `${m.name} ${m.rss.toFixed(0)}`).join(', ');
    // The same clock as a V8 CPU profile's sample times on Linux: a profile's samples of the measured load only.
    process.stdout.write(`load window, monotonic µs (--cpu-prof sample times): ${monotonicStart}-${monotonicEnd}\n`);
    process.stdout.write(`memory after the load, MiB: PSS ${pss} (largest ${Math.max(...memory.map((m) => m.pss)).toFixed(0)}); RSS ${rss}\n`);
  } finally {
    await runledger.stop();
    await nc.close();
    await stopProcess(nats.child);
    fs.rmSync(store, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
