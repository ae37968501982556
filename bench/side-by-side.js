/**
 * The side-by-side part of `npm run bench`: every system runs the same durable 5-step workload
 * (bench/peers/workload.js), sequential and at 16 concurrent, interleaved in rounds so a slow minute of the
 * machine hits every system alike. Each figure is the median of the rounds with its min–max spread.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const PEERS_DIR = path.join(__dirname, 'peers');

/** Installs the pinned peers (bench/peers/package-lock.json) on first use; the project itself never loads them. */
function ensurePeersInstalled() {
  const marker = path.join(PEERS_DIR, 'node_modules', '.package-lock.json');
  if (fs.existsSync(marker) && fs.statSync(marker).mtimeMs >= fs.statSync(path.join(PEERS_DIR, 'package-lock.json')).mtimeMs) return;
  process.stderr.write('installing the benchmark peers (pinned in bench/peers/package-lock.json)…\n');
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: PEERS_DIR, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('installing bench/peers failed; run `npm ci` in bench/peers, or BENCH_PEERS=0 to measure Runledger alone');
}

async function inFlight(total, limit, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, total) }, async () => {
    while (next < total) await fn(next++);
  }));
}

/** CPU seconds (user + system) a set of processes used so far, from /proc (Linux). */
function cpuSeconds(pids) {
  const ticks = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100);
  let total = 0;
  for (const pid of pids) {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / ticks;
    } catch {
      /* exited */
    }
  }
  return total;
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One measured batch: `count` requests, `concurrency` in flight, sustained (settled) where the system says so. */
async function measureBatch(system, { count, concurrency, prefix }) {
  const latencies = [];
  const pids = system.pids?.() ?? [];
  const cpuBefore = cpuSeconds(pids);
  const perProcessBefore = pids.map((pid) => cpuSeconds([pid]));
  const t0 = process.hrtime.bigint();
  await inFlight(count, concurrency, async (i) => {
    const s = process.hrtime.bigint();
    await system.run({ request_id: `${prefix}-${i}`, user_id: `bench-user-${i % 50}`, message: `add task benchmark item ${i}` });
    latencies.push(Number(process.hrtime.bigint() - s) / 1e6);
  });
  await system.settle?.();
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  latencies.sort((a, b) => a - b);
  return {
    rate: count / seconds,
    p50: pct(latencies, 50),
    p99: pct(latencies, 99),
    cpuMsPerRequest: pids.length ? ((cpuSeconds(pids) - cpuBefore) * 1000) / count : null,
    // Where the CPU went, by process (system.processNames() names the pids in order).
    cpuMsByProcess: pids.map((pid, i) => ((cpuSeconds([pid]) - perProcessBefore[i]) * 1000) / count),
  };
}

/**
 * Runs `rounds` rounds after the warm-up; in each, every system does a sequential batch and a c16 batch, the order
 * rotating by round. Returns per system: { seq: [...results], c16: [...results] }.
 */
async function runRounds(systems, { rounds, seqCount, c16Count, warmup = 0, onProgress }) {
  const results = new Map(systems.map((s) => [s.name, { seq: [], c16: [], load: [] }]));
  // Steady state, not start-up: every system first serves the same `warmup` requests at c16 and a sequential batch,
  // unmeasured. A JIT-compiled service (Runledger's seven, the peers' Node endpoints and in-process engines) is still
  // optimizing its request path after the first few hundred requests; a long-running deployment is past that.
  for (const system of warmup > 0 ? systems : []) {
    await measureBatch(system, { count: warmup, concurrency: 16, prefix: `${system.key}-warm-c16` });
    await measureBatch(system, { count: seqCount, concurrency: 1, prefix: `${system.key}-warm-seq` });
    onProgress?.(`warm-up ${system.name}: ${warmup} requests at c16 and ${seqCount} sequential, unmeasured`);
  }
  for (let round = 0; round < rounds; round++) {
    const order = systems.map((_, i) => systems[(i + round) % systems.length]);
    for (const system of order) {
      const r = results.get(system.name);
      r.load.push(os.loadavg()[0]);
      r.seq.push(await measureBatch(system, { count: seqCount, concurrency: 1, prefix: `${system.key}-r${round}-seq` }));
      r.c16.push(await measureBatch(system, { count: c16Count, concurrency: 16, prefix: `${system.key}-r${round}-c16` }));
      onProgress?.(`round ${round + 1}/${rounds} ${system.name}: seq ${r.seq.at(-1).rate.toFixed(1)}/s, c16 ${r.c16.at(-1).rate.toFixed(1)}/s`);
    }
  }
  return results;
}

/** CPU per request of each of a system's processes, medians of one mode's batches: "name 1.2, name 0.4, …". */
const cpuByProcess = (r, mode, names) => names.map((n, i) => `${n} ${median(r[mode].map((x) => x.cpuMsByProcess[i])).toFixed(1)}`).join(', ');

const spread = (xs, digits = 1) => `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

/**
 * The goals of issue 22 against each peer, by its key: Runledger's rate at least this many times the peer's,
 * sequential and at c16. The in-memory LangGraph (MemorySaver) is a reference with no goal, only its ratio.
 */
const PEER_GOALS = { restate: 1, dbos: 1, langgraph_pg: 1.5 };
/** Issue 22: Runledger at least this share of its transport floor's rate, sequential and at c16. */
const FLOOR_GOAL = 0.7;
/** Issue 22: CPU per request at c16 (ms, all of a system's processes), p99 at c16 (ms), messages per request. */
const CPU_GOAL_MS = 7;
const P99_GOAL_MS = 100;
const MESSAGES_GOAL = 50;

/**
 * The table, the ratio lines and the goal lines of issue 22, from the rounds' results. `messagesPerRequest`
 * (optional, by system key) gives the messages through nats-server per request at steady state, for its goal.
 */
function report(systems, results, { ours = 'runledger', messagesPerRequest } = {}) {
  const lines = ['system | seq req/s median (min–max) | c16 req/s median (min–max) | c16 p50 / p99 ms | load avg during its batches'];
  for (const s of systems) {
    const r = results.get(s.name);
    lines.push(`${s.name} | ${spread(r.seq.map((x) => x.rate))} | ${spread(r.c16.map((x) => x.rate))} | ${median(r.c16.map((x) => x.p50)).toFixed(1)} / ${median(r.c16.map((x) => x.p99)).toFixed(1)} | ${median(r.load).toFixed(2)}`);
  }
  const mine = systems.find((s) => s.key === ours);
  // The transport floor (bench/floor.js) is no peer: Runledger's messages without Runledger, the part of the cost
  // that no change to our code can remove while a request keeps them.
  const references = systems.filter((s) => s.reference);
  const rate = (s, mode) => median(results.get(s.name)[mode].map((x) => x.rate));
  const c16Median = (s, field) => median(results.get(s.name).c16.map((x) => x[field]));
  // Each unmet goal line also says where the floor stands on it: a goal it misses is out of reach of the messages.
  const atFloors = (figure) => (references.length ? `; ${references.map((f) => `${f.name}: ${figure(f)}`).join(', ')}` : '');
  const goals = [];
  const peerGoals = [];
  if (mine) {
    for (const peer of systems.filter((s) => s !== mine && !s.reference)) {
      for (const mode of ['seq', 'c16']) {
        const ratio = rate(mine, mode) / rate(peer, mode);
        lines.push(`ratio: Runledger / ${peer.name} ${mode} = ${ratio.toFixed(2)}`);
        const target = PEER_GOALS[peer.key];
        if (target) peerGoals.push({ key: peer.key, line: `goal: Runledger ≥ ${target}× ${peer.name} ${mode}: ${ratio >= target ? 'met' : `not met (${ratio.toFixed(2)}×, ${(target / ratio).toFixed(1)}× short${atFloors((f) => `${(rate(f, mode) / rate(peer, mode)).toFixed(2)}×`)})`}` });
      }
    }
    // In the issue's order (Restate, DBOS, LangGraph.js + PostgresSaver), whatever the systems' order.
    const order = Object.keys(PEER_GOALS);
    goals.push(...peerGoals.sort((x, y) => order.indexOf(x.key) - order.indexOf(y.key)).map((g) => g.line));
    const r = results.get(mine.name);
    const cpu = c16Median(mine, 'cpuMsPerRequest');
    const p99 = c16Median(mine, 'p99');
    lines.push(`Runledger CPU per request at c16, all its processes (services + nats-server): ${cpu.toFixed(1)} ms`);
    const names = mine.processNames?.() ?? [];
    // Sequential too: one request at a time nothing is batched, so each message costs its own write and wake-up.
    for (const mode of ['c16', 'seq']) {
      if (mode === 'seq') lines.push(`Runledger CPU per request sequential, all its processes: ${median(r.seq.map((x) => x.cpuMsPerRequest)).toFixed(1)} ms`);
      if (names.length) lines.push(`Runledger CPU per request ${mode === 'c16' ? 'at c16' : 'sequential'} by process (medians): ${cpuByProcess(r, mode, names)} ms`);
    }
    for (const reference of references) lines.push(...floorLines(mine, reference, systems, results, rate));
    for (const floor of references) {
      for (const mode of ['seq', 'c16']) {
        const ratio = rate(mine, mode) / rate(floor, mode);
        goals.push(`goal: Runledger ≥ ${FLOOR_GOAL}× its transport floor ${mode}: ${ratio >= FLOOR_GOAL ? 'met' : `not met (${ratio.toFixed(2)}×, ${(FLOOR_GOAL / ratio).toFixed(1)}× short; ${floor.name}: ${rate(floor, mode).toFixed(1)} req/s)`}`);
      }
    }
    goals.push(`goal: CPU per request at c16 ≤ ${CPU_GOAL_MS} ms: ${cpu <= CPU_GOAL_MS ? 'met' : `not met (${cpu.toFixed(1)} ms, ${(cpu / CPU_GOAL_MS).toFixed(1)}× over${atFloors((f) => `${c16Median(f, 'cpuMsPerRequest').toFixed(1)} ms`)})`}`);
    goals.push(`goal: p99 at c16 ≤ ${P99_GOAL_MS} ms: ${p99 <= P99_GOAL_MS ? 'met' : `not met (${p99.toFixed(1)} ms, ${(p99 / P99_GOAL_MS).toFixed(1)}× over${atFloors((f) => `${c16Median(f, 'p99').toFixed(1)} ms`)})`}`);
    const messages = messagesPerRequest?.[mine.key];
    if (messages !== undefined) {
      const floorMessages = (f) => (messagesPerRequest[f.key] === undefined ? 'not measured' : messagesPerRequest[f.key].toFixed(1));
      goals.push(`goal: messages through nats-server per request ≤ ${MESSAGES_GOAL}: ${messages <= MESSAGES_GOAL ? 'met' : `not met (${messages.toFixed(1)}, ${(messages / MESSAGES_GOAL).toFixed(1)}× over${atFloors(floorMessages)})`}`);
    }
  }
  return [...lines, ...goals];
}

/** What the transport floor says: how far Runledger is above its own messages, and how far the messages alone reach. */
function floorLines(mine, floor, systems, results, rate) {
  const f = results.get(floor.name);
  const lines = [];
  for (const mode of ['seq', 'c16']) lines.push(`ratio: Runledger / ${floor.name} ${mode} = ${(rate(mine, mode) / rate(floor, mode)).toFixed(2)}`);
  const names = floor.processNames?.() ?? [];
  for (const mode of ['c16', 'seq']) {
    const label = mode === 'c16' ? 'at c16' : 'sequential';
    lines.push(`${floor.name} CPU per request ${label}, all its processes: ${median(f[mode].map((x) => x.cpuMsPerRequest)).toFixed(1)} ms (${cpuByProcess(f, mode, names)})`);
  }
  for (const peer of systems.filter((s) => s !== mine && !s.reference)) {
    const target = PEER_GOALS[peer.key];
    for (const mode of ['seq', 'c16']) {
      const against = target ? `the messages alone, against the goal's ${target}` : 'the messages alone; no goal';
      lines.push(`floor: ${floor.name} / ${peer.name} ${mode} = ${(rate(floor, mode) / rate(peer, mode)).toFixed(2)} (${against})`);
    }
  }
  return lines;
}

module.exports = { ensurePeersInstalled, runRounds, report, inFlight, cpuSeconds, PEERS_DIR };
