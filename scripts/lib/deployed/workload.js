'use strict';
/**
 * The acceptance workload of the deployed suites (test/deployed-*.e2e.spec.ts): task requests from the caller identity
 * as @runledger/client makes them, and what is checked once they are answered (scripts/lib/chaos/checks.js): every
 * request answered once with the answer it asked for, one run each, every run terminal, nothing duplicated at the tool
 * or the store, the audit chain verifying.
 */
const { deterministicUuid } = require('../../../libs/kernel/src/ids');
const { decodeReply, encodeJson } = require('../../../libs/messaging/src/codec');
const { jetstream, jetstreamManager } = require('@nats-io/jetstream');
const { EventLog } = require('../../../libs/event-log/src');
const { settle, resolveLeftOpen, checkLog, checkAudit } = require('../chaos/checks');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Task requests "add task <tag> item <i>" on agents.task-assistant.process. One request: the same request_id on every
 * attempt, asked again when no reply came in time (a lost reply), nobody served it yet, or the reply says "taking
 * longer" (the run goes on; the same request_id joins it), until the final answer (at most 8 attempts).
 */
function taskRequests(caller, tag) {
  const replies = [];
  const attempts = [];
  const item = (i) => `${tag} item ${i}`;
  const expected = (i) => `I've added '${item(i)}' to your tasks.`;
  async function request(i) {
    const body = encodeJson({ user_id: `${tag}-user-${i}`, conversation_id: deterministicUuid(tag, 'conversation', String(i)), request_id: `${tag}-req-${i}`, message: `add task ${item(i)}` });
    for (attempts[i] = 1; attempts[i] <= 8; attempts[i]++) {
      const msg = await caller.request('agents.task-assistant.process', body, { timeout: 30_000 }).catch((err) => {
        if (!/timeout|no responders/i.test(err.message)) throw err;
        return null;
      });
      const reply = msg && decodeReply(msg.data, msg.headers);
      if (reply && !reply.ok && !reply.error.retryable) throw new Error(`request ${i}: ${JSON.stringify(reply.error)}`);
      const answer = reply?.ok ? reply.body : null;
      if (answer && !/taking longer/.test(answer.response_text ?? '')) return void (replies[i] = answer);
      await sleep(Math.min(5_000, 250 * 2 ** attempts[i])); // the client's backoff, not a condition
    }
    throw new Error(`request ${i}: no final answer in ${attempts[i] - 1} attempts`);
  }
  /** Requests whose answer is not the one they asked for (empty: every one answered as asked). */
  const wrongAnswers = () => replies.map((r, i) => (r?.response_text === expected(i) ? null : `${i}: ${JSON.stringify(r)}`)).filter(Boolean);
  return { replies, attempts, request, expected, wrongAnswers };
}

/**
 * What the log says about the answered requests, as the admin: the consumers caught up, runs nobody carries any more
 * closed by the resolver, then the counts (non_terminal, lies, duplicates, lost, coverage_violations, chain_ok …).
 */
async function checkWorkload(admin, replies, progress) {
  const jsm = await jetstreamManager(admin);
  const log = new EventLog(jetstream(admin), jsm, { producer: 'deployed-test', clock: { now: () => new Date() } });
  await settle(jsm, progress);
  const leftOpen = await resolveLeftOpen(admin, log, new Set(replies.map((r) => r.run_id)), progress);
  await settle(jsm, progress);
  return { ...leftOpen, ...(await checkLog(log, replies)), ...(await checkAudit(admin, progress)) };
}

/** What the log holds for runs (a wrong answer's): each run's events with their errors, and its children's. */
async function explainRuns(admin, runIds) {
  const jsm = await jetstreamManager(admin);
  const log = new EventLog(jetstream(admin), jsm, { producer: 'deployed-test', clock: { now: () => new Date() } });
  const lines = [];
  const explain = async (subject, depth) => {
    const events = await log.read(subject).catch((err) => [{ type: `unreadable: ${err.message}`, data: {} }]);
    lines.push(`${'  '.repeat(depth)}${subject}: ${events.map((e) => (e.data?.error ? `${e.type}(${JSON.stringify(e.data.error)})` : e.type)).join(' ')}`);
    const children = new Set(events.flatMap((e) => [e.data?.child_run_id].filter(Boolean)));
    for (const child of depth < 2 ? children : []) await explain(`rl.log.run.*.${child}`, depth + 1);
  };
  for (const id of runIds) await explain(`rl.log.run.*.${id}`, 0);
  return lines.join('\n');
}

/** Request/reply as `nc`; a failure reply throws with its error. */
async function ask(nc, subject, body = {}, timeoutMs = 60_000) {
  const msg = await nc.request(subject, encodeJson(body), { timeout: timeoutMs });
  const reply = decodeReply(msg.data, msg.headers);
  if (!reply.ok) throw new Error(`${subject}: ${JSON.stringify(reply.error)}`);
  return reply.body;
}

module.exports = { taskRequests, checkWorkload, explainRuns, ask };
