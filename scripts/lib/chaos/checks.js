/**
 * What the fault suite checks once the load is done, all from the log and the services' own answers:
 * the consumers have caught up, runs left open are handed to the resolver (rl.runs.resolve), then the counts.
 * Every wait has a deadline and says what it gave up on.
 */
const { LOG_STREAM, foldEvents } = require('../../../libs/event-log/src');
const { evolveRun, initialRunState, isTerminal } = require('../../../libs/runs/src');
const { decodeReply } = require('../../../libs/messaging/src/codec');
const { retryingTransient } = require('../../../libs/testing/src/helpers');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Request/reply as the admin; a failure is an answer ({ ok: false, error }), never a throw. */
async function ask(nc, subject, body, timeoutMs) {
  try {
    const msg = await nc.request(subject, new TextEncoder().encode(JSON.stringify(body)), { timeout: timeoutMs });
    const reply = decodeReply(msg.data, msg.headers);
    return reply.ok ? { ok: true, body: reply.body } : { ok: false, error: reply.error.code };
  } catch (err) {
    return { ok: false, error: err.message };
  }
}

/** Waits until the audit ledger's consumer (the chain and the runs index it feeds) has everything appended so far. */
async function settle(jsm, progress, timeoutMs = 5 * 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (const durable of ['audit-ledger']) {
    for (;;) {
      const info = await jsm.consumers.info(LOG_STREAM, durable).catch(() => null);
      if (info && info.num_pending === 0 && info.num_ack_pending === 0) break;
      if (Date.now() > deadline) return progress(`consumer ${durable} still behind after ${timeoutMs / 1000} s (pending ${info?.num_pending}, unacked ${info?.num_ack_pending}); checking anyway`);
      await sleep(250);
    }
  }
}

/**
 * Every run of the load (the roots the callers were told, and their children), folded from the log. Read as a client
 * reads right after a node was killed: DEPENDENCY.DOWN while the cluster elects a leader is retried.
 */
async function loadRuns(log, roots) {
  const { state: events } = await retryingTransient(() => log.replay((acc, e) => (acc.push(e), acc), [], { filter: 'rl.log.run.>' }), 3 * 60_000);
  const byRun = new Map();
  for (const e of events) byRun.set(e.metadata.stream_id, [...(byRun.get(e.metadata.stream_id) ?? []), e]);
  return [...byRun.entries()]
    .filter(([, ev]) => ev[0].type === 'RunCreated' && roots.has(ev[0].data.root_run_id))
    .map(([id, ev]) => ({ id, kind: ev[0].data.run_kind, parent: ev[0].data.parent_run_id, root: ev[0].data.root_run_id, events: ev, state: foldEvents(evolveRun, initialRunState(), ev) }));
}

/**
 * Runs of the load still open once every request is answered: nobody carries them any more (their roots are
 * terminal). The resolver closes them from the log; how many it had to close is reported (left_open).
 */
async function resolveLeftOpen(nc, log, roots, progress, timeoutMs = 3 * 60_000) {
  const open = (await loadRuns(log, roots)).filter((r) => !isTerminal(r.state));
  for (const r of open) progress(`left open: ${r.id} (${r.kind}, root ${r.root}): ${r.events.map((e) => e.type).join(' ')}`);
  if (!open.length) return { left_open: 0, resolved: 0 };
  const deadline = Date.now() + timeoutMs;
  let resolved = 0;
  for (;;) {
    const reply = await ask(nc, 'rl.runs.resolve', { requested_by: 'chaos' }, 60_000);
    if (reply.ok) resolved += reply.body.resolved.length;
    else progress(`rl.runs.resolve: ${reply.error}`);
    const still = (await loadRuns(log, roots)).filter((r) => !isTerminal(r.state)).length;
    if (!still) break;
    if (Date.now() > deadline) {
      progress(`${still} runs still open ${timeoutMs / 1000} s after the load`);
      break;
    }
    await sleep(5_000);
  }
  return { left_open: open.length, resolved };
}

/** What the log holds for the load's runs, against what the callers were told. */
async function checkLog(log, replies) {
  const roots = new Set(replies.map((r) => r.run_id));
  const runs = await loadRuns(log, roots);
  const byId = new Map(runs.map((r) => [r.id, r]));
  const perRoot = new Map();
  for (const r of runs) {
    const c = perRoot.get(r.root) ?? { agent: 0, tool_gateway: 0, db_write: 0 };
    c[r.kind] = (c[r.kind] ?? 0) + 1;
    perRoot.set(r.root, c);
  }
  // A lie: a tool call or write recorded as not done while its own child run shows it done.
  const lies = runs.filter((r) => r.kind !== 'db_write' && r.state.status !== 'completed' && runs.some((c) => c.parent === r.id && c.state.status === 'completed')).length
    + runs.filter((r) => r.kind === 'agent').flatMap((r) => r.state.tool_calls).filter((c) => c.status !== 'ok' && byId.get(c.child_run_id)?.state.status === 'completed').length;
  return {
    runs: runs.length,
    non_terminal: runs.filter((r) => !isTerminal(r.state)).length,
    lies,
    duplicates: [...perRoot.values()].filter((c) => c.agent > 1 || c.tool_gateway > 1 || c.db_write > 1).length,
    lost: replies.filter((r) => byId.get(r.run_id)?.state.status !== 'completed').length,
  };
}

/**
 * Asks until an answer that is not "retry" (DEPENDENCY.DOWN while the log recovers), within `timeoutMs` in all;
 * each attempt may take that long (whole-log passes take minutes on a long run at a busy machine).
 */
async function askPatiently(nc, subject, timeoutMs, progress) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await ask(nc, subject, {}, Math.max(1_000, deadline - Date.now()));
    if (reply.ok || reply.error !== 'DEPENDENCY.DOWN' || Date.now() > deadline) return reply;
    progress(`${subject}: ${reply.error}, asking again`);
    await sleep(1_000);
  }
}

/** rl.audit.coverage (contract 001 §6 over the whole log) and rl.audit.verify (the hash chain). */
async function checkAudit(nc, progress) {
  const coverage = await askPatiently(nc, 'rl.audit.coverage', 900_000, progress);
  const chain = await askPatiently(nc, 'rl.audit.verify', 900_000, progress);
  if (!coverage.ok) progress(`rl.audit.coverage: ${coverage.error}`);
  if (!chain.ok) progress(`rl.audit.verify: ${chain.error}`);
  else if (!chain.body.ok) progress(`rl.audit.verify: not ok: ${JSON.stringify(chain.body).slice(0, 500)}`);
  for (const v of coverage.ok ? coverage.body.violations.slice(0, 10) : []) progress(`coverage: ${v.run_id} lacks ${v.missing}`);
  return {
    coverage_violations: coverage.ok ? coverage.body.violations.length + coverage.body.in_progress.length : -1,
    chain_ok: Boolean(chain.ok && chain.body.ok),
    chain_length: chain.ok ? chain.body.length : 0,
  };
}

module.exports = { settle, resolveLeftOpen, checkLog, checkAudit };
