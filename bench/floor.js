/**
 * The transport floor: Runledger's request with its messages and nothing else. Five bare Node processes (no NestJS,
 * no validation, no folds, no policy, no sealing, no chain hashing; JSON only for tiny hop bodies) send through the
 * bench's nats-server exactly the messages one Runledger task-assistant request sends, in the same order and with
 * the same waits, as counted on the bus with a `>` subscription. The log is in Runledger's format 2
 * (libs/event-log/src/envelope.ts encodeCommit): an append, the events one decider command produces, is ONE message,
 * a commit, published with a msgID and (but for the inbox) the expected version; its `Rl-Event-Type` header lists
 * the commit's types comma-separated.
 *
 *   request (agents.task-assistant.process) → decision, the front: the run's live feed subscribed (no read: an inbox
 *   append taken as new proves the request new), the inbox commit [AgentRequested] (no expected version, awaited);
 *   decision, the worker (the inbox's durable consumer, ack after the run; no read of the run, its id is new): a
 *   direct get of the conversation, classify (request/reply to a classifier), the run commit [RunCreated,
 *   AuthzDecided, RunStarted, StepCompleted, StepCompleted, ToolCallRequested] v0, the tool call (request/reply) →
 *   gateway: one direct get of its caller (the run's last message under any owner's name: its opening, which names
 *   the owner and holds its RunCreated), its child run
 *   commit [RunCreated, AuthzDecided, RunStarted, EffectClaimed] v0, the write (request/reply) → writer: the same
 *   direct get of its caller, its child run commit [RunCreated, AuthzDecided, RunStarted] v0, the document (KV put), [DbWriteAudited,
 *   RunCompleted]; gateway: [ToolCallAudited, RunCompleted]; decision: the conversation commit [MessageExchanged]
 *   v0, then the run commit [ToolCallRecorded, DecisionRecorded, RunCompleted], whose copy republished on the live
 *   feed answers the caller (the log copies decision's run commits only, as Runledger's: LIVE_RUNS_REPUBLISHED; the
 *   run subjects name their owner, rl.log.run.<owner>.<id>, as Runledger's do). A ledger process holds a durable batch consumer on the run messages (ack-all, one ack
 *   per batch, on a connection without response permissions, as the ledger's consumer identity: see permissions.yaml)
 *   and per batch appends one chain commit; it writes a run's document once, in the batch that holds the run's end
 *   (Runledger's ledger holds an open run's row until it ends, up to 500 ms, which no run of this workload outlasts;
 *   one row per run since issue 22: the run's summary, its audit trail and, for the task run, its decision audit
 *   record, which is no second document any more).
 *
 * Per request: 22 events in 8 commits (6 run commits, the inbox's, the conversation's) plus a share of a chain
 * commit, 3 direct gets, 4 request/replies (caller, classify, tool, write), 1 KV put; 2 live copies; the ledger's 6
 * deliveries, 3 row puts; ~49 messages through nats-server in all (`npm run bench` counts both
 * Runledger's and the floor's; `npm run bench -- --messages` by hop).
 *
 * So `npm run bench` can say what the messages alone cost on this machine: CPU per request, rate sequential and at
 * c16. Whatever Runledger spends above the floor is its own logic; a goal the floor itself misses cannot be met by
 * any logic that keeps these messages (the contracts' events, the choke points as separate identities).
 *
 * Run as a process: `node bench/floor.js <role> <nats url> <creds file>`; the bench starts it through startFloor().
 */
const { randomUUID } = require('node:crypto');
const { spawn } = require('node:child_process');

const ROLES = ['decision', 'intent', 'tool', 'db', 'ledger'];
/** The floor's own stream, subjects, buckets and consumers on the bench's server. */
const BASE = 'floor';
const LAYOUT = {
  stream: `${BASE.toUpperCase()}_LOG`,
  prefix: `${BASE}.log`,
  live: `${BASE}.live.run`,
  buckets: { tasks: `${BASE}_tasks`, index: `${BASE}_runs_index` },
  subjects: { request: `${BASE}.agents.process`, classify: `${BASE}.intent.classify`, tool: `${BASE}.tool.invoke`, write: `${BASE}.db.write` },
  ledger: `${BASE}-ledger`,
  inboxDurable: `${BASE}-decision-inbox`,
};
/**
 * A commit's body, sized like Runledger's: an event stored as its own message was ~600–2,200 bytes of JSON (~900
 * typical), about 500 of them the envelope's metadata, which a commit writes once for all its events (each event
 * keeps its id, type, data and only the metadata that differs). So the floor sends 500 + 400 × (events) opaque bytes
 * per commit: 900 for one event, 2,900 for the run's opening of six.
 */
const COMMIT_BYTES = 500;
const EVENT_BYTES = 400;
const commitBytes = (events) => COMMIT_BYTES + EVENT_BYTES * events;
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

async function role(name, url, credsFile) {
  const { stream, prefix, live: liveFeed, buckets, subjects: on, ledger: ledgerDurable, inboxDurable } = LAYOUT;
  const { connect, headers } = require('@nats-io/transport-node');
  const { jetstream, jetstreamManager } = require('@nats-io/jetstream');
  const { Kvm } = require('@nats-io/kv');
  // Compiled modules (dist/, brought up to date by startFloor): a floor process runs no TypeScript compiler. The
  // services' fix of the NATS client (no Error built per answered request) applies to the floor as to them.
  require('../dist/libs/messaging/src/nats-request-patch');
  const { identityOptions } = require('../dist/libs/messaging/src/nats-identity');
  const nc = await connect({ servers: url, ...identityOptions({ creds: credsFile }), noAsyncTraces: true });
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  const kvm = new Kvm(nc);
  const bodies = new Map();
  const bodyOf = (events) => {
    if (!bodies.has(events)) bodies.set(events, new Uint8Array(commitBytes(events)).fill(0x61));
    return bodies.get(events);
  };
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  const traced = (type) => {
    const h = headers();
    h.set('traceparent', TRACEPARENT);
    if (type) h.set('Rl-Event-Type', type);
    return h;
  };
  /**
   * One append as Runledger's EventLog makes it: one publish holding the commit's events, with a msgID (a UUID, as
   * Runledger's commit ids; the floor spends nothing on deriving them) and, when given, the expected version (the
   * subject's last sequence). Returns the commit's sequence: the aggregate's version after it.
   */
  const append = async (subject, types, expected, data = bodyOf(types.length)) => {
    const ack = await js.publish(subject, data, {
      msgID: randomUUID(),
      headers: traced(types.join(',')),
      ...(expected === undefined ? {} : { expect: { lastSubjectSequence: expected } }),
    });
    return ack.seq;
  };
  /** The last message of an aggregate (a direct get), or null when it has none. */
  const lookup = (subject) => jsm.direct.getMessage(stream, { last_by_subj: subject }).catch(() => null);
  /** As a choke point checks its caller (issue 22): one get of the run's last message (its opening, in this workload). */
  const checkCaller = (subject) => lookup(subject);
  const request = (subject, payload) => nc.request(subject, enc.encode(JSON.stringify(payload)), { timeout: 30_000, headers: traced() });
  const serve = (subject, handler) => nc.subscribe(subject, {
    queue: name,
    callback: (_err, m) => {
      handler(JSON.parse(dec.decode(m.data))).then((reply) => m.respond(enc.encode(JSON.stringify(reply)), { headers: traced() }), (err) => {
        process.stderr.write(`floor ${name}: ${err.message}\n`);
        m.respond(enc.encode('{"ok":false}'));
      });
    },
  });

  if (name === 'intent') serve(on.classify, async () => ({ ok: true, intent: 'ADD_TASK' }));

  if (name === 'db') {
    const tasks = await kvm.open(buckets.tasks);
    serve(on.write, async ({ run_id: parent }) => {
      const child = `${prefix}.run.db.${randomUUID()}`;
      await checkCaller(`${prefix}.run.decision.${parent}`);
      const v = await append(child, ['RunCreated', 'AuthzDecided', 'RunStarted'], 0);
      await tasks.put(randomUUID(), enc.encode(JSON.stringify({ task_id: parent, description: 'x'.repeat(200) })));
      await append(child, ['DbWriteAudited', 'RunCompleted'], v);
      return { ok: true };
    });
  }

  if (name === 'tool') {
    serve(on.tool, async ({ run_id: parent }) => {
      const child = `${prefix}.run.tool.${randomUUID()}`;
      await checkCaller(`${prefix}.run.decision.${parent}`);
      const v = await append(child, ['RunCreated', 'AuthzDecided', 'RunStarted', 'EffectClaimed'], 0);
      await request(on.write, { run_id: parent });
      await append(child, ['ToolCallAudited', 'RunCompleted'], v);
      return { ok: true };
    });
  }

  if (name === 'decision') {
    const inbox = `${prefix}.inbox.decision`;
    // The inbox commit carries the run id to the worker: JSON padded to a one-event commit's size.
    const inboxPad = 'x'.repeat(commitBytes(1) - 100);
    // The front: the caller's request becomes an inbox event; the run's close, republished by the log, answers it.
    serve(on.request, async (req) => {
      const runId = randomUUID();
      // As the run waiter: the live feed subscribed, then the inbox commit (a request taken as new is not looked up).
      let live;
      const closed = new Promise((resolve) => {
        live = nc.subscribe(`${liveFeed}.decision.${runId}`, {
          callback: (_e, m) => {
            if (!m.headers?.get('Rl-Event-Type')?.includes('RunCompleted')) return;
            live.unsubscribe();
            resolve({ ok: true, decision_type: 'INVOKE_TOOL' });
          },
        });
      });
      const event = enc.encode(JSON.stringify({ run_id: runId, request_id: req.request_id, pad: inboxPad }));
      try {
        await append(inbox, ['AgentRequested'], undefined, event);
      } catch (err) {
        live.unsubscribe();
        throw err;
      }
      return closed;
    });
    // The worker: the inbox's durable consumer carries the run (a new run: nothing of it to read).
    const messages = await (await js.consumers.get(stream, inboxDurable)).consume({ max_messages: 64 });
    (async () => {
      for await (const m of messages) {
        const { run_id: runId } = JSON.parse(dec.decode(m.data));
        const run = `${prefix}.run.decision.${runId}`;
        const conversation = `${prefix}.conversation.${randomUUID()}`;
        (async () => {
          await lookup(conversation);
          await request(on.classify, { run_id: runId });
          const v = await append(run, ['RunCreated', 'AuthzDecided', 'RunStarted', 'StepCompleted', 'StepCompleted', 'ToolCallRequested'], 0);
          await request(on.tool, { run_id: runId });
          await append(conversation, ['MessageExchanged'], 0);
          await append(run, ['ToolCallRecorded', 'DecisionRecorded', 'RunCompleted'], v);
          m.ack();
        })().catch((err) => {
          process.stderr.write(`floor decision: ${err.message}\n`);
          m.nak();
        });
      }
    })();
  }

  if (name !== 'ledger') {
    await nc.flush();
    process.stdout.write('ready\n');
    return;
  }
  {
    const index = await kvm.open(buckets.index);
    const consumer = await js.consumers.get(stream, ledgerDurable);
    const messages = await consumer.consume({ max_messages: 256 });
    const queue = [];
    let wake;
    (async () => {
      for await (const m of messages) {
        queue.push(m);
        wake?.();
      }
    })();
    let chainVersion = 0;
    process.stdout.write('ready\n');
    for (;;) {
      if (!queue.length) await new Promise((r) => (wake = r));
      wake = undefined;
      // As the ledger: a part-filled batch waits 25 ms for more (one chain append per request or so, not per event).
      if (queue.length < 256) await new Promise((r) => setTimeout(r, 25));
      const batch = queue.splice(0, 256);
      const typed = (m, type) => m.headers?.get('Rl-Event-Type')?.includes(type);
      const ended = new Set(batch.filter((m) => typed(m, 'RunCompleted')).map((m) => m.subject));
      const doc = enc.encode(JSON.stringify({ n: batch.length, pad: 'x'.repeat(400) }));
      chainVersion = await append(`${prefix}.audit.chain`, ['AuditChainBatch'], chainVersion);
      await Promise.all([...ended].map((s) => index.put(s.slice(prefix.length + 5), doc)));
      // As the ledger: one ack per batch, of its highest sequence (ack-all).
      batch[batch.length - 1]?.ack();
    }
  }
}

/** Creates the floor's log (Runledger's stream settings, its own name and subjects), buckets and consumers. */
async function provisionFloor(jsm, nc) {
  const { stream, prefix, live, buckets, ledger, inboxDurable } = LAYOUT;
  const { logStreamConfig } = require('../libs/event-log/src');
  const { AckPolicy, DeliverPolicy } = require('@nats-io/jetstream');
  const { Kvm } = require('@nats-io/kv');
  await jsm.streams.add(logStreamConfig({ name: stream, subjects: [`${prefix}.>`], republish: { src: `${prefix}.run.decision.>`, dest: `${live}.decision.>` } }));
  // As Runledger's log (LIVE_RUNS_REPUBLISHED): only the decision's runs are copied on the live feed.
  const kvm = new Kvm(nc);
  for (const b of Object.values(buckets)) await kvm.create(b, { history: 1, allow_direct: true });
  await jsm.consumers.add(stream, { durable_name: inboxDurable, filter_subject: `${prefix}.inbox.decision`, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, max_ack_pending: 256 });
  // The ledger's consumer as Runledger's is: ack-all, one ack per batch.
  await jsm.consumers.add(stream, { durable_name: ledger, filter_subject: `${prefix}.run.>`, ack_policy: AckPolicy.All, deliver_policy: DeliverPolicy.All, max_ack_pending: 512, ack_wait: 30_000_000_000 });
}

/** The floor as a system of the side-by-side bench (the same interface as bench/runledger-system.js). */
async function startFloor({ nats, nc, jsm }) {
  const { SERVICE_V8_FLAGS } = require('../scripts/lib/stack');
  const { inFlight } = require('./side-by-side');
  const { stream, subjects, ledger } = LAYOUT;
  require('../scripts/build').build();
  await provisionFloor(jsm, nc);
  const procs = ROLES.map((name) => {
    const child = spawn(process.execPath, [...SERVICE_V8_FLAGS, __filename, name, nats.url, nats.creds.admin.file], { stdio: ['ignore', 'pipe', 'inherit'] });
    const ready = new Promise((resolve, reject) => {
      child.stdout.on('data', (chunk) => String(chunk).includes('ready') && resolve());
      child.once('exit', (code) => reject(new Error(`floor ${name} exited (code ${code})`)));
    });
    return { name: `${BASE}-${name}`, child, ready };
  });
  await Promise.all(procs.map((p) => p.ready));
  const encoder = new TextEncoder();
  const run = async (req) => {
    const msg = await nc.request(subjects.request, encoder.encode(JSON.stringify({ request_id: req.request_id, user_id: req.user_id, message: req.message })), { timeout: 60_000 });
    const reply = JSON.parse(new TextDecoder().decode(msg.data));
    if (!reply.ok) throw new Error('floor: request failed');
  };
  // Warmed up as Runledger is before its rounds (bench.js: 20 requests, then at c16 its 50 users' first requests and
  // the 100 of its steady-state count; the floor's own steady-state count follows this).
  for (let i = 0; i < 20; i++) await run({ request_id: `floor-warm-${randomUUID()}` });
  await inFlight(100, 16, () => run({ request_id: `floor-warm-${randomUUID()}` }));
  return {
    procs,
    run,
    async settle() {
      for (;;) {
        const info = await jsm.consumers.info(stream, ledger);
        if (info.num_pending === 0 && info.num_ack_pending === 0) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    pids: () => [...procs.map((p) => p.child.pid), nats.child.pid],
    processNames: () => [...procs.map((p) => p.name), 'nats-server'],
    async stop() {
      for (const p of procs) p.child.kill('SIGKILL');
    },
  };
}

if (require.main === module) {
  const [name, url, creds] = process.argv.slice(2);
  role(name, url, creds).catch((err) => {
    process.stderr.write(`floor ${name}: ${err.stack || err}\n`);
    process.exit(1);
  });
}

module.exports = { startFloor };
