/**
 * `npm run bench -- --scale`: does a request stay as fast when the log holds millions of events, and how fast does
 * the whole log replay into projections?
 *  - The log is grown to each level (BENCH_SCALE_LEVELS, default 10000,100000,1000000 events) with copies of a real
 *    request's commits (the same events per commit, types, sizes and headers, new ids; each run copied to a run of its
 *    own) on `rl.log.bench.<run>` subjects of the same stream:
 *    the stream's size and subject count grow as with real traffic, without making the audit ledger chain a
 *    million synthetic events first. At each level, BENCH_SCALE_REQUESTS sequential requests measure p50/p99.
 *  - Replay: the whole log folded through the run projection (evolveRun, per subject), in events/s, as the admin reads
 *    it (`runledger replay`: through one consumer) and as a reader does (direct gets), in turn.
 */
const os = require('node:os');
const { randomUUID } = require('node:crypto');
const { headers: natsHeaders } = require('@nats-io/transport-node');
const { connectionOf, EventLog, LOG_STREAM, EVENT_TYPE_HEADER, encodeCommit, readSequences } = require('../libs/event-log/src');
const { tryStoredEvents } = require('../libs/event-log/src/stored-event');
const { evolveRun, initialRunState } = require('../libs/runs/src/domain/run-state');
const { inFlight } = require('./side-by-side');

const LEVELS = (process.env.BENCH_SCALE_LEVELS ?? '10000,100000,1000000').split(',').map(Number);
const REQUESTS = Number(process.env.BENCH_SCALE_REQUESTS ?? 100);
const REPLAYS = Math.max(1, Number(process.env.BENCH_SCALE_REPLAYS ?? 3));
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** The commits of real, finished requests (each the events of one append): the template the log is grown with. */
async function templateCommits(log, jsm) {
  const info = await jsm.streams.info(LOG_STREAM, { subjects_filter: 'rl.log.run.>' });
  const subjects = Object.keys(info.state.subjects ?? {});
  const commits = [];
  for (const subject of subjects.slice(0, 8)) {
    for (const event of await log.read(subject)) {
      const last = commits.at(-1);
      if (last && last[0].seq === event.seq) last.push(event);
      else commits.push([event]);
    }
  }
  if (!commits.length) throw new Error('scale: no recorded run to copy');
  return commits;
}

/** How many events the log holds (it holds only the bench's real requests when this is asked, before growing). */
async function eventsInLog(log) {
  return (await log.replay((n) => n + 1, 0)).state;
}

async function growTo(level, { js, template, events }) {
  const missing = Math.max(0, level - events);
  let added = 0;
  let run = randomUUID();
  const perCycle = template.reduce((n, c) => n + c.length, 0);
  const commitsNeeded = Math.ceil(missing / perCycle) * template.length;
  await inFlight(commitsNeeded, 256, async (i) => {
    const source = template[i % template.length];
    const previous = template[(i + template.length - 1) % template.length];
    // Each run of the template becomes a run of its own, a lawful history as in the real log (copying all of the
    // template's runs onto one subject made every copy a run of anomalies, which the fold then recorded).
    if (i % template.length === 0 || source[0].subject !== previous[0].subject) run = randomUUID();
    const envelopes = source.map((e) => ({ type: e.type, data: e.data, metadata: { ...e.metadata, event_id: randomUUID(), stream_id: run } }));
    const hdrs = natsHeaders();
    hdrs.set(EVENT_TYPE_HEADER, source.map((e) => e.type).join(','));
    await js.publish(`rl.log.bench.${run}`, encodeCommit(envelopes), { msgID: envelopes[0].metadata.event_id, headers: hdrs });
    added += envelopes.length;
  });
  return events + added;
}

async function requestLatencies(system) {
  const latencies = [];
  for (let i = 0; i < REQUESTS; i++) {
    const s = process.hrtime.bigint();
    await system.run({ request_id: `scale-${randomUUID()}`, user_id: `scale-user-${i % 20}`, message: `add task scale item ${i}` });
    latencies.push(Number(process.hrtime.bigint() - s) / 1e6);
  }
  await system.settle();
  return latencies.sort((a, b) => a - b);
}

async function runScale({ system, js, jsm }) {
  const lines = [];
  const log = new EventLog(js, jsm, { producer: 'bench', clock: { now: () => new Date() } });
  for (let i = 0; i < 20; i++) await system.run({ request_id: `scale-warm-${i}`, user_id: 'scale-warm', message: `add task warm ${i}` });
  await system.settle();
  const template = await templateCommits(log, jsm);
  const byLevel = [];
  let events = await eventsInLog(log);
  for (const level of LEVELS) {
    events = await growTo(level, { js, template, events });
    const lat = await requestLatencies(system);
    byLevel.push({ level, p50: pct(lat, 50), p99: pct(lat, 99) });
    const messages = (await jsm.streams.info(LOG_STREAM)).state.messages;
    lines.push(`scale: ${events.toLocaleString('en-US')} events (${messages.toLocaleString('en-US')} messages) in the log → request p50 ${pct(lat, 50).toFixed(1)} ms, p99 ${pct(lat, 99).toFixed(1)} ms (${REQUESTS} sequential)`);
    process.stderr.write(`${lines.at(-1)}\n`);
  }
  // The replay is run BENCH_SCALE_REPLAYS times (default 3) over the same log both ways, as the admin reads
  // (`runledger replay`: through one consumer, the only identity allowed one) and as a reader reads (the services, the
  // operator: direct gets), with its floors on the same log and the same reads: reading alone and reading + decoding
  // (direct gets; through the admin's consumer), and, for comparison, what an ordered consumer reads. Every pass once
  // per round, in turn, so a change of the machine's load touches them all alike: each rate is the median, with the spread.
  const adminLog = new EventLog(js, jsm, { producer: 'bench', clock: { now: () => new Date() }, mayCreateConsumers: true });
  let replayed;
  let total = 0;
  const replayAs = async (replayLog) => {
    const t0 = process.hrtime.bigint();
    const { state } = await replayLog.replay((runs, event) => {
      runs.set(event.subject, evolveRun(runs.get(event.subject) ?? initialRunState(), event));
      return runs;
    }, new Map());
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    replayed = state;
    return { count: [...state.values()].reduce((n, r) => n + r.event_count, 0), seconds };
  };
  const passes = {
    admin: () => replayAs(adminLog),
    consumerDecode: () => decodeWholeLog(adminLog, jsm),
    reader: () => replayAs(log),
    decode: () => readWholeLog(jsm, true),
    read: () => readWholeLog(jsm, false),
    consumer: () => readWholeLogByConsumer(js),
  };
  const rates = Object.fromEntries(Object.keys(passes).map((k) => [k, []]));
  // This process's CPU per event of each pass (the reading client's, with the fold): unlike events/s it hardly moves
  // with the load of the machine (nats-server and the other work on it run elsewhere), so runs compare by it.
  const cpuPerEvent = Object.fromEntries(Object.keys(passes).map((k) => [k, []]));
  for (let i = 0; i < REPLAYS; i++) {
    for (const [how, pass] of Object.entries(passes)) {
      const cpu0 = process.cpuUsage();
      const { count, seconds } = await pass();
      const cpu = process.cpuUsage(cpu0);
      if (how === 'admin') total = count;
      // Events per second: the read-only passes deliver the commits that hold `total` events.
      const events = how === 'read' || how === 'consumer' ? total : count;
      rates[how].push(events / seconds);
      cpuPerEvent[how].push((cpu.user + cpu.system) / events);
    }
  }
  const fmt = (r) => Math.round(r).toLocaleString('en-US');
  const median = (r) => r.sort((a, b) => a - b)[Math.floor(r.length / 2)];
  const spread = (r) => `median of ${r.length} (${fmt(r[0])}–${fmt(r.at(-1))})`;
  const load = os.loadavg()[0].toFixed(1);
  const cpuOf = (how) => `; this process's CPU ${median(cpuPerEvent[how]).toFixed(2)} µs/event (${cpuPerEvent[how][0].toFixed(2)}–${cpuPerEvent[how].at(-1).toFixed(2)})`;
  const replayRate = median(rates.admin);
  const readerRate = median(rates.reader);
  lines.push(`scale: replay of the whole log (${total.toLocaleString('en-US')} events, ${replayed.size.toLocaleString('en-US')} aggregates) through the run projection, as the admin reads it (runledger replay: one consumer): ${fmt(replayRate)} events/s ${spread(rates.admin)}${cpuOf('admin')}`);
  lines.push(`scale: the same replay as a reader reads it (services, operator: direct gets, no consumer): ${fmt(readerRate)} events/s ${spread(rates.reader)}${cpuOf('reader')}`);
  for (const [key, label] of [['read', 'read only (direct gets, nothing decoded)'], ['decode', 'read + decode (direct gets, every envelope parsed, no fold)'], ['consumer', 'read only through an ordered consumer (admin only; readers may not create one)'], ['consumerDecode', "read + decode as the admin's replay reads (one consumer, every envelope parsed, no fold)"]]) {
    lines.push(`scale: replay floor, ${label}: ${fmt(median(rates[key]))} events/s ${spread(rates[key])}${cpuOf(key)}`);
  }
  lines.push(`scale: load average (1 min) after the replays: ${load} on ${os.cpus().length} cores`);
  lines.push(`goal: replay ≥ 100k events/s: ${replayRate >= 100_000 ? 'met' : 'not met'} (runledger replay, as the admin: ${fmt(replayRate)} events/s; a reader's by direct gets: ${fmt(readerRate)})`);
  const first = byLevel[0];
  const last = byLevel.at(-1);
  if (first && last && last !== first) {
    const growth = last.p50 / first.p50 - 1;
    lines.push(`goal: latency at ${last.level.toLocaleString('en-US')} events within 20 % of ${first.level.toLocaleString('en-US')}: ${growth <= 0.2 ? 'met' : 'not met'} (p50 ${(growth * 100).toFixed(0)} %)`);
  }
  return lines;
}

/**
 * Reads the whole log once as EventLog's replay does (direct gets kept in flight: readSequences), optionally decoding
 * each commit, and folds nothing: what a replay costs before any projection. Counts messages, or with `decode` the
 * events they hold.
 */
async function readWholeLog(jsm, decode) {
  const t0 = process.hrtime.bigint();
  const info = await jsm.streams.info(LOG_STREAM);
  let count = 0;
  await readSequences(connectionOf(jsm), LOG_STREAM, info.state.first_seq, info.state.last_seq, (r) => {
    if ('missing' in r) throw new Error(`scale: message ${r.seq} missing`);
    count += decode ? tryStoredEvents(r).length : 1;
  });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (decode && count === 0) throw new Error('scale: nothing decoded');
  return { count, seconds };
}

/** The admin's replay without a fold: EventLog.messages through one consumer, each commit decoded; counts events. */
async function decodeWholeLog(adminLog, jsm) {
  const t0 = process.hrtime.bigint();
  const info = await jsm.streams.info(LOG_STREAM);
  let count = 0;
  await adminLog.messages('rl.log.>', info.state.first_seq, info.state.last_seq, (m) => {
    count += tryStoredEvents(m).length;
  });
  return { count, seconds: Number(process.hrtime.bigint() - t0) / 1e9 };
}

/** The same read through an ordered consumer (1,024 messages per pull), as readers read before issue 23. */
async function readWholeLogByConsumer(js) {
  const { DeliverPolicy } = require('@nats-io/jetstream');
  const t0 = process.hrtime.bigint();
  const consumer = await js.consumers.get(LOG_STREAM, { filter_subjects: 'rl.log.>', deliver_policy: DeliverPolicy.All });
  const messages = await consumer.consume({ max_messages: 1024 });
  let count = 0;
  for await (const m of messages) {
    count++;
    if (m.info.pending === 0) break;
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  await messages.close();
  return { count, seconds };
}

module.exports = { runScale };
