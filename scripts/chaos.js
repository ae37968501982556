#!/usr/bin/env node
/**
 * npm run chaos — the fault suite (issue 10). Drives a bounded load of task-assistant requests ("add task …",
 * each with its own user and request_id, every caller retrying with the same request_id until it gets a final
 * answer) while SIGKILLing services and nats-server at random, then checks what the log says:
 *   answered      every request got the answer matching what happened ("I've added '<item>' …")
 *   left_open     runs still open once every request was answered, closed by the resolver (rl.runs.resolve)
 *   non_terminal  runs of the load without a terminal event after that (0)
 *   lies          tool calls recorded as failed or timed out whose write is recorded as done (0)
 *   duplicates    requests with more than one agent run, tool call or write (0)
 *   lost          answered requests whose outcome is not in the log (0)
 *   coverage      rl.audit.coverage violations and runs still in progress (0)
 *   chain         the audit chain verifies (rl.audit.verify ok)
 *   crashed_on_their_own  service processes that exited without being killed (restarted at once so the load goes
 *                 on; 0: a service that dies of a fault it should survive fails the suite)
 * Prints the counts as JSON (with the seconds spent starting, under load and checking) and exits 0 when all pass, 1 when a check fails, 2 when the suite itself broke or an
 * option is not one of these (--help prints this text):
 * Options: --requests N (200) --kills K (4) --nats-restarts R (1) --concurrency C (8) --seed S
 *          --load-deadline-s T (1800 + 2 per request: a request unanswered by then is reported, not awaited)
 *          --cluster (three nats-server nodes, log and buckets with 3 replicas, two instances of every service).
 */
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const usage = require('./lib/usage');
const ARGS = process.argv.slice(2);
usage.checkScriptArgs(__filename, ARGS, { valued: ['requests', 'kills', 'nats-restarts', 'concurrency', 'seed', 'load-deadline-s'], switches: ['cluster'] });
const arg = (name, fallback, min = 0) => usage.wholeNumberOption(__filename, ARGS, name, fallback, { min });
require('./lib/ts-register');
const { connect } = require('@nats-io/transport-node');
const { jetstreamManager, jetstream } = require('@nats-io/jetstream');
const { EventLog } = require('../libs/event-log/src');
const { deterministicUuid } = require('../libs/kernel/src');
const { decodeReply } = require('../libs/messaging/src/codec');
const { identityOptions } = require('../libs/messaging/src/nats-identity');
const { Topology } = require('./lib/chaos/topology');
const { settle, resolveLeftOpen, checkLog, checkAudit } = require('./lib/chaos/checks');

const CLUSTER = process.argv.includes('--cluster');
const REQUESTS = arg('requests', 200, 1);
const KILLS = arg('kills', 4);
const NATS_RESTARTS = arg('nats-restarts', 1);
const CONCURRENCY = arg('concurrency', 8, 1);
let seed = arg('seed', Date.now() % 2 ** 31);
const SEED = seed;
/** A small deterministic generator, so a failing run can be repeated with its --seed. */
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
/** How long a restarted service may take to report ready before the suite says so and goes on. */
const READY_WAIT_MS = 180_000;
/**
 * How long a caller waits for one reply before asking again with the same request_id: a reply lost with a killed node
 * is asked for again after this, not after the front's own reply timeout; a slow answer asked again joins the same run.
 */
const ASK_TIMEOUT_MS = 10_000;
/** A request unanswered this long after the load began is reported as unanswered, never waited for forever. */
const LOAD_DEADLINE_MS = arg('load-deadline-s', 30 * 60 + REQUESTS * 2, 1) * 1000;
/**
 * Short timeouts so lost replies happen often; retry budgets longer than the slowest restart (READY_WAIT_MS), since
 * the suite asks for the answer that matches a healthy outcome: a classifier restart on a busy machine can take
 * 30 s and more, and with the 8 s default classification would (correctly) degrade to "I'm not sure…".
 * The resolver sweeps only when asked (after the load), so every run it closes is counted.
 */
const SERVICE_ENV = {
  LOG_LEVEL: 'warn', RL_INBOX_ACK_WAIT_MS: '3000', TOOL_TIMEOUT_MS: '3000', REPLY_TIMEOUT_MS: '15000',
  CLASSIFY_RETRY_BUDGET_MS: String(READY_WAIT_MS + 30_000), TOOL_RETRY_BUDGET_MS: String(READY_WAIT_MS + 60_000),
  RL_RESOLVER_INTERVAL_MS: '0',
};
const progress = (line) => process.stderr.write(`[chaos ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const tag = `chaos-${SEED}`;
const item = (i) => `${tag} item ${i}`;
const expected = (i) => `I've added '${item(i)}' to your tasks.`;

async function main() {
  const started = Date.now();
  const store = fs.mkdtempSync(path.join(os.tmpdir(), 'rl-chaos-'));
  const stack = new Topology({ store, cluster: CLUSTER, env: SERVICE_ENV, readyWaitMs: READY_WAIT_MS, progress, random });
  const counts = { seed: SEED, mode: CLUSTER ? 'cluster (3 nats nodes, 2 instances per service)' : 'single server', requests: REQUESTS, answered: 0, wrong_answers: 0, unanswered: 0, service_kills: 0, nats_restarts: 0, crashed_on_their_own: 0 };
  // Where the time went (start, load, checks), so a slow run on a busy machine says which part was slow.
  counts.phases_s = {};
  let phaseStarted = started;
  const phase = (name) => {
    counts.phases_s[name] = Math.round((Date.now() - phaseStarted) / 1000);
    phaseStarted = Date.now();
  };
  let nc;
  try {
    progress(`starting ${counts.mode} under ${store}`);
    await stack.start();
    phase('start');
    nc = await connect({ servers: stack.natsUrl.split(','), maxReconnectAttempts: -1, reconnectTimeWait: 250, ...identityOptions({ creds: stack.creds.admin.file }) });
    const jsm = await jetstreamManager(nc);
    const log = new EventLog(jetstream(nc), jsm, { producer: 'chaos', clock: { now: () => new Date() } });
    const replies = await load(nc, stack, counts);
    phase('load');
    progress('checking the log');
    counts.unanswered = replies.filter((r) => !r).length;
    counts.wrong_answers = replies.filter((r, i) => r && r.response_text !== expected(i)).length;
    replies.forEach((r, i) => (!r ? progress(`request ${i} unanswered`) : r.response_text !== expected(i) && progress(`request ${i} answered ${JSON.stringify(r)}`)));
    const answered = replies.filter(Boolean);
    await settle(jsm, progress);
    Object.assign(counts, await resolveLeftOpen(nc, log, new Set(answered.map((r) => r.run_id)), progress));
    await settle(jsm, progress);
    Object.assign(counts, await checkLog(log, answered), await checkAudit(nc, progress));
    phase('checks');
  } catch (err) {
    progress(`the suite broke: ${err.stack ?? err}`);
    counts.error = String(err.message ?? err);
  } finally {
    counts.crashed_on_their_own = stack.crashed;
    await nc?.close().catch(() => undefined);
    await stack.stop();
  }
  counts.duration_s = Math.round((Date.now() - started) / 1000);
  counts.load_average = os.loadavg().map((l) => Number(l.toFixed(1)));
  const failed = counts.error || counts.unanswered || counts.wrong_answers || counts.non_terminal || counts.lies || counts.duplicates || counts.lost || counts.coverage_violations || counts.crashed_on_their_own || !counts.chain_ok;
  process.stdout.write(`${JSON.stringify(counts, null, 2)}\n`);
  if (failed) progress(`store and service logs kept in ${store}`);
  else fs.rmSync(store, { recursive: true, force: true });
  process.stdout.write(failed ? 'chaos: FAILED\n' : 'chaos: all checks passed\n');
  process.exit(counts.error ? 2 : failed ? 1 : 0);
}

/** CONCURRENCY callers share the requests; faults fire, one after another, as the answered count crosses evenly spaced marks. */
async function load(nc, stack, counts) {
  const faults = shuffle([...Array(KILLS).fill('service'), ...Array(NATS_RESTARTS).fill('nats')]);
  const marks = faults.map((_, k) => Math.floor(((k + 1) * REQUESTS) / (faults.length + 1)));
  const replies = new Array(REQUESTS);
  const deadline = Date.now() + LOAD_DEADLINE_MS;
  let next = 0;
  let faulting = Promise.resolve();
  const injectDue = () => {
    while (marks.length && counts.answered >= marks[0]) {
      marks.shift();
      const kind = faults.shift();
      faulting = faulting.then(async () => {
        progress(`fault at ${counts.answered} answered`);
        if (kind === 'nats') await stack.killNats().then(() => counts.nats_restarts++);
        else await stack.killService().then(() => counts.service_kills++);
      });
    }
  };
  const caller = async () => {
    while (next < REQUESTS) {
      const i = next++;
      replies[i] = await askUntilFinal(nc, { user_id: `${tag}-user-${i}`, conversation_id: deterministicUuid(tag, 'conv', i), request_id: `${tag}-req-${i}`, message: `add task ${item(i)}` }, deadline);
      if (replies[i]) counts.answered++;
      injectDue();
    }
  };
  const ticker = setInterval(() => progress(`${counts.answered}/${REQUESTS} answered`), 30_000);
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, caller));
    progress('load done; waiting for the last fault to finish');
    await faulting;
  } finally {
    clearInterval(ticker);
  }
  return replies;
}

/** One caller: the same request_id until a final answer (a restart or lost reply only delays it), or the deadline. */
async function askUntilFinal(nc, body, deadline) {
  while (Date.now() < deadline) {
    try {
      const msg = await nc.request('agents.task-assistant.process', new TextEncoder().encode(JSON.stringify(body)), { timeout: ASK_TIMEOUT_MS });
      const reply = decodeReply(msg.data, msg.headers);
      if (reply.ok && !/taking longer/.test(reply.body.response_text ?? '')) return reply.body;
    } catch {
      // no responders or a lost reply while something restarts: ask again
    }
    await sleep(500); // a polite client's pacing, not a condition
  }
  return undefined;
}

function shuffle(list) {
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [list[i], list[j]] = [list[j], list[i]];
  }
  return list;
}

main().catch((err) => {
  process.stderr.write(`chaos: ${err.stack ?? err}\n`);
  process.exit(2);
});
