/**
 * `npm run bench -- --scale`: does a request stay as fast when the log holds millions of events, and how fast does
 * the whole log replay into projections?
 *  - The log is grown to each level (BENCH_SCALE_LEVELS, default 10000,100000,1000000 events) with copies of a real
 *    request's events (same types, sizes and headers, new ids; each run copied to a run of its own) on
 *    `rl.log.bench.<run>` subjects of the same stream:
 *    the stream's size and subject count grow as with real traffic, without making the audit ledger chain a
 *    million synthetic events first. At each level, BENCH_SCALE_REQUESTS sequential requests measure p50/p99.
 *  - Replay: the whole log folded through the run projection (evolveRun, per subject), in events/s.
 */
const { randomUUID } = require('node:crypto');
const { headers: natsHeaders } = require('@nats-io/transport-node');
const { EventLog, LOG_STREAM, encodeEnvelope } = require('../libs/event-log/src');
const { tryDecode } = require('../libs/event-log/src/stored-event');
const { evolveRun, initialRunState } = require('../libs/runs/src/domain/run-state');
const { inFlight } = require('./side-by-side');

const LEVELS = (process.env.BENCH_SCALE_LEVELS ?? '10000,100000,1000000').split(',').map(Number);
const REQUESTS = Number(process.env.BENCH_SCALE_REQUESTS ?? 100);
const REPLAYS = Math.max(1, Number(process.env.BENCH_SCALE_REPLAYS ?? 3));
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** The events of one real, finished request: the template the log is grown with. */
async function templateEvents(log, jsm) {
  const info = await jsm.streams.info(LOG_STREAM, { subjects_filter: 'rl.log.run.>' });
  const subjects = Object.keys(info.state.subjects ?? {});
  const events = [];
  for (const subject of subjects.slice(0, 8)) events.push(...(await log.read(subject)));
  if (!events.length) throw new Error('scale: no recorded run to copy');
  return events;
}

async function growTo(level, { js, jsm, template }) {
  let count = (await jsm.streams.info(LOG_STREAM)).state.messages;
  const missing = Math.max(0, level - count);
  let run = randomUUID();
  await inFlight(missing, 256, async (i) => {
    const source = template[i % template.length];
    const previous = template[(i + template.length - 1) % template.length];
    // Each run of the template becomes a run of its own, a lawful history as in the real log (copying all of the
    // template's runs onto one subject made every copy a run of anomalies, which the fold then recorded).
    if (i % template.length === 0 || source.subject !== previous.subject) run = randomUUID();
    const envelope = { type: source.type, data: source.data, metadata: { ...source.metadata, event_id: randomUUID(), stream_id: run } };
    const hdrs = natsHeaders();
    hdrs.set('Rl-Event-Type', source.type);
    await js.publish(`rl.log.bench.${run}`, encodeEnvelope(envelope), { msgID: envelope.metadata.event_id, headers: hdrs });
  });
  count += missing;
  return count;
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
  const template = await templateEvents(log, jsm);
  const byLevel = [];
  for (const level of LEVELS) {
    const messages = await growTo(level, { js, jsm, template });
    const lat = await requestLatencies(system);
    byLevel.push({ level, p50: pct(lat, 50), p99: pct(lat, 99) });
    lines.push(`scale: ${messages.toLocaleString('en-US')} events in the log → request p50 ${pct(lat, 50).toFixed(1)} ms, p99 ${pct(lat, 99).toFixed(1)} ms (${REQUESTS} sequential)`);
    process.stderr.write(`${lines.at(-1)}\n`);
  }
  // The replay is run BENCH_SCALE_REPLAYS times (default 3) over the same log: its rate is the median, with the spread.
  const rates = [];
  let replayed;
  for (let i = 0; i < REPLAYS; i++) {
    const t0 = process.hrtime.bigint();
    const { state } = await log.replay((runs, event) => {
      runs.set(event.subject, evolveRun(runs.get(event.subject) ?? initialRunState(), event));
      return runs;
    }, new Map());
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    replayed = state;
    rates.push([...state.values()].reduce((n, r) => n + r.event_count, 0) / seconds);
  }
  rates.sort((a, b) => a - b);
  const total = [...replayed.values()].reduce((n, r) => n + r.event_count, 0);
  const replayRate = rates[Math.floor(rates.length / 2)];
  const fmt = (r) => Math.round(r).toLocaleString('en-US');
  lines.push(`scale: replay of the whole log (${total.toLocaleString('en-US')} events, ${replayed.size.toLocaleString('en-US')} aggregates) through the run projection: ${fmt(replayRate)} events/s median of ${rates.length} (${fmt(rates[0])}–${fmt(rates.at(-1))})`);
  // The replay's own floors, on the same log and the same kind of consumer: reading alone, and reading + decoding.
  // As many times as the replay, interleaved with each other: the median with its spread.
  const floors = { read: [], decode: [] };
  let read = 0;
  for (let i = 0; i < REPLAYS; i++) {
    for (const decode of [false, true]) {
      const { count, seconds } = await readWholeLog(js, decode);
      floors[decode ? 'decode' : 'read'].push(count / seconds);
      read = count;
    }
  }
  for (const [key, label] of [['read', 'read only (an ordered consumer, nothing decoded)'], ['decode', 'read + decode (every envelope parsed, no fold)']]) {
    const r = floors[key].sort((a, b) => a - b);
    lines.push(`scale: replay floor, ${label}: ${fmt(r[Math.floor(r.length / 2)])} events/s median of ${r.length} (${fmt(r[0])}–${fmt(r.at(-1))}; ${read.toLocaleString('en-US')} messages)`);
  }
  lines.push(`goal: replay ≥ 100k events/s: ${replayRate >= 100_000 ? 'met' : `not met (${Math.round(replayRate).toLocaleString('en-US')} events/s)`}`);
  const first = byLevel[0];
  const last = byLevel.at(-1);
  if (first && last && last !== first) {
    const growth = last.p50 / first.p50 - 1;
    lines.push(`goal: latency at ${last.level.toLocaleString('en-US')} events within 20 % of ${first.level.toLocaleString('en-US')}: ${growth <= 0.2 ? 'met' : 'not met'} (p50 ${(growth * 100).toFixed(0)} %)`);
  }
  return lines;
}

/**
 * Reads the whole log once through an ordered consumer as EventLog's scan does (1,024 messages per pull), optionally
 * decoding each envelope, and folds nothing: what a replay costs before any projection.
 */
async function readWholeLog(js, decode) {
  const { DeliverPolicy } = require('@nats-io/jetstream');
  const t0 = process.hrtime.bigint();
  const consumer = await js.consumers.get(LOG_STREAM, { filter_subjects: 'rl.log.>', deliver_policy: DeliverPolicy.All });
  const messages = await consumer.consume({ max_messages: 1024 });
  let count = 0;
  let decoded = 0;
  for await (const m of messages) {
    count++;
    if (decode && tryDecode(m.data, m.seq, m.subject)) decoded++;
    if (m.info.pending === 0) break;
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  await messages.close();
  if (decode && decoded === 0) throw new Error('scale: nothing decoded');
  return { count, seconds };
}

module.exports = { runScale };
