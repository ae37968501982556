/**
 * The transport floor: Runledger's request with its messages and nothing else. Five bare Node processes (no NestJS,
 * no validation, no folds, no policy, no sealing, no chain hashing; JSON only for tiny hop bodies) send through the
 * bench's nats-server exactly the messages one Runledger task-assistant request sends, in the same order and with
 * the same waits, as counted on the bus with a `>` subscription (issue 12, bench/results.md):
 *
 *   request (agents.task-assistant.process) → decision: a direct get, the inbox event (awaited), its delivery and ack;
 *   a direct get, the task run opened (3 events, pipelined, msgID + expected version), a direct get (the
 *   conversation), classify (request/reply to a classifier),
 *   2 checkpoints + the tool call's request (3), the tool call (request/reply) → gateway: 2 direct gets, its child
 *   run opened and claimed (4), the write (request/reply) → writer: 2 direct gets, its child run (3), the document
 *   (KV put), audit + close (2); gateway: audit + close (2); decision: the tool call recorded (1), the conversation
 *   (1), decision + close (2), whose republished copy on the live feed answers the caller. A ledger process holds a
 *   durable batch consumer on the run events (one ack per delivery) and per batch writes a document per run to two
 *   buckets, one per decision record, and appends one chain event: ~22 events and ~150 messages per request.
 *
 * So `npm run bench` can say what the messages alone cost on this machine: CPU per request, rate sequential and at
 * c16. Whatever Runledger spends above the floor is its own logic; a goal the floor itself misses cannot be met by
 * any logic that keeps these messages (the contracts' events, the choke points as separate identities).
 *
 * The `commits` variant stores each append as one message holding all its events (a log format Runledger does not
 * have: one event per message is what its sequences, versions, chain and consumers rest on): the same hops and
 * waits, 11 messages per request in the log instead of 22. It says what that format change could buy at most.
 *
 * Run as a process: `node bench/floor.js <role> <variant> <nats url> <creds file>`; the bench starts it through
 * startFloor().
 */
const { randomUUID } = require('node:crypto');
const { spawn } = require('node:child_process');

const ROLES = ['decision', 'intent', 'tool', 'db', 'ledger'];
const VARIANTS = { messages: 'floor', commits: 'floorc' };

/** Each variant's own stream, subjects, buckets and consumers on the bench's server. */
function layout(variant) {
  const base = VARIANTS[variant];
  if (!base) throw new Error(`unknown floor variant ${variant}`);
  return {
    stream: `${base.toUpperCase()}_LOG`,
    prefix: `${base}.log`,
    live: `${base}.live.run`,
    buckets: { tasks: `${base}_tasks`, events: `${base}_audit_events`, index: `${base}_runs_index`, decisions: `${base}_audit_decisions` },
    subjects: { request: `${base}.agents.process`, classify: `${base}.intent.classify`, tool: `${base}.tool.invoke`, write: `${base}.db.write` },
    ledger: `${base}-ledger`,
    inboxDurable: `${base}-decision-inbox`,
  };
}
/** A stored event is ~600–2,200 bytes of JSON in Runledger's log (~900 typical): the floor sends 900 opaque bytes. */
const EVENT_BYTES = 900;
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

async function role(name, variant, url, credsFile) {
  const { stream, prefix, live: liveFeed, buckets, subjects: on, ledger: ledgerDurable, inboxDurable } = layout(variant);
  const commits = variant === 'commits';
  const { connect, headers } = require('@nats-io/transport-node');
  const { jetstream, jetstreamManager } = require('@nats-io/jetstream');
  const { Kvm } = require('@nats-io/kv');
  // Compiled modules (dist/, brought up to date by startFloor): a floor process runs no TypeScript compiler. The
  // services' fix of the NATS client (no Error built per answered request) applies to the floor as to them.
  require('../dist/libs/messaging/src/nats-request-patch');
  const { identityOptions } = require('../dist/libs/messaging/src/nats-identity');
  const { jsErrorCode, JS_WRONG_LAST_MSG_ID } = require('../dist/libs/event-log/src/log-errors');
  const nc = await connect({ servers: url, ...identityOptions({ creds: credsFile }), noAsyncTraces: true });
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  const kvm = new Kvm(nc);
  const body = new Uint8Array(EVENT_BYTES).fill(0x61);
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  const traced = (type) => {
    const h = headers();
    h.set('traceparent', TRACEPARENT);
    if (type) h.set('Rl-Event-Type', type);
    return h;
  };
  /**
   * One append as Runledger's EventLog makes it on a single-copy log: pipelined, the first with the expected version,
   * each next one expecting the event before it as the log's last message; when another writer's message came in
   * between (wrong last msg id), the rest goes one at a time, each expecting the subject's sequence before it.
   */
  const append = async (subject, types, expected, data = body) => {
    // UUIDs as Runledger's event ids (it derives them from the command; the floor spends nothing on that).
    const ids = types.map(() => randomUUID());
    const send = (i, expect) => js.publish(subject, data, { msgID: ids[i], headers: traced(types[i]), ...(expect ? { expect } : {}) });
    const first = expected === undefined ? undefined : { lastSubjectSequence: expected };
    if (commits) {
      const all = types.length === 1 ? data : new Uint8Array(data.length * types.length).fill(0x61);
      const ack = await js.publish(subject, all, { msgID: ids[0], headers: traced(types.join(',')), ...(first ? { expect: first } : {}) });
      return ack.seq;
    }
    const pipelined = types.map((_, i) => {
      const ack = send(i, i === 0 ? first : { lastMsgID: ids[i - 1] });
      ack.catch(() => undefined);
      return ack;
    });
    let serial = false;
    let seq = 0;
    for (let i = 0; i < types.length; i++) {
      const oneAtATime = () => send(i, i === 0 ? first : { lastSubjectSequence: seq });
      const ack = serial ? await oneAtATime() : await pipelined[i].catch((err) => {
        if (i === 0 || jsErrorCode(err) !== JS_WRONG_LAST_MSG_ID) throw err;
        serial = true;
        return oneAtATime();
      });
      seq = ack.seq;
    }
    return seq;
  };
  const lookups = (aggregates) => Promise.all(aggregates.map((s) => jsm.direct.getMessage(stream, { last_by_subj: s }).catch(() => null)));
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
      const child = `${prefix}.run.${randomUUID()}`;
      await lookups([child, `${prefix}.run.${parent}`]);
      const v = await append(child, ['RunCreated', 'AuthzDecided', 'RunStarted'], 0);
      await tasks.put(randomUUID(), enc.encode(JSON.stringify({ task_id: parent, description: 'x'.repeat(200) })));
      await append(child, ['DbWriteAudited', 'RunCompleted'], v);
      return { ok: true };
    });
  }

  if (name === 'tool') {
    serve(on.tool, async ({ run_id: parent }) => {
      const child = `${prefix}.run.${randomUUID()}`;
      await lookups([child, `${prefix}.run.${parent}`]);
      const v = await append(child, ['RunCreated', 'AuthzDecided', 'RunStarted', 'EffectClaimed'], 0);
      await request(on.write, { run_id: parent });
      await append(child, ['ToolCallAudited', 'RunCompleted'], v);
      return { ok: true };
    });
  }

  if (name === 'decision') {
    const inbox = `${prefix}.inbox.decision`;
    // The front: the caller's request becomes an inbox event; the run's close, republished by the log, answers it.
    serve(on.request, (req) => new Promise((resolve, reject) => {
      const runId = randomUUID();
      const live = nc.subscribe(`${liveFeed}.${runId}`, {
        callback: (_e, m) => {
          if (!m.headers?.get('Rl-Event-Type')?.includes('RunCompleted')) return;
          live.unsubscribe();
          resolve({ ok: true, decision_type: 'INVOKE_TOOL' });
        },
      });
      const event = enc.encode(JSON.stringify({ run_id: runId, request_id: req.request_id, pad: 'x'.repeat(EVENT_BYTES) }));
      // As the run waiter: a look at the run (after which the live subscription is in place), then the inbox event.
      lookups([`${prefix}.run.${runId}`]).then(() => append(inbox, ['AgentRequested'], undefined, event)).catch(reject);
    }));
    // The worker: the inbox's durable consumer carries the run.
    const messages = await (await js.consumers.get(stream, inboxDurable)).consume({ max_messages: 64 });
    (async () => {
      for await (const m of messages) {
        const { run_id: runId } = JSON.parse(dec.decode(m.data));
        const run = `${prefix}.run.${runId}`;
        const conversation = `${prefix}.conversation.${randomUUID()}`;
        (async () => {
          await lookups([run]);
          let v = await append(run, ['RunCreated', 'AuthzDecided', 'RunStarted'], 0);
          await lookups([conversation]);
          await request(on.classify, { run_id: runId });
          v = await append(run, ['StepCompleted', 'StepCompleted', 'ToolCallRequested'], v);
          await request(on.tool, { run_id: runId });
          v = await append(run, ['ToolCallRecorded'], v);
          await append(conversation, ['MessageExchanged'], 0);
          await append(run, ['DecisionRecorded', 'RunCompleted'], v);
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
    const [events, index, decisions] = await Promise.all([buckets.events, buckets.index, buckets.decisions].map((b) => kvm.open(b)));
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
      const runs = new Set(batch.map((m) => m.subject));
      const doc = enc.encode(JSON.stringify({ n: batch.length, pad: 'x'.repeat(400) }));
      await Promise.all([...runs].flatMap((s) => [events.put(s.slice(prefix.length + 5), doc), index.put(s.slice(prefix.length + 5), doc)]));
      await Promise.all(batch.filter((m) => m.headers?.get('Rl-Event-Type')?.includes('DecisionRecorded')).map((m) => decisions.put(String(m.seq), doc)));
      chainVersion = await append(`${prefix}.audit.chain`, ['AuditChainBatch'], chainVersion);
      for (const m of batch) m.ack();
    }
  }
}

/** Creates the floor's log (Runledger's stream settings, its own name and subjects), buckets and consumers. */
async function provisionFloor(jsm, nc, variant) {
  const { stream, prefix, live, buckets, ledger, inboxDurable } = layout(variant);
  const { logStreamConfig } = require('../libs/event-log/src');
  const { AckPolicy, DeliverPolicy } = require('@nats-io/jetstream');
  const { Kvm } = require('@nats-io/kv');
  await jsm.streams.add(logStreamConfig({ name: stream, subjects: [`${prefix}.>`], republish: { src: `${prefix}.run.>`, dest: `${live}.>` } }));
  const kvm = new Kvm(nc);
  for (const b of Object.values(buckets)) await kvm.create(b, { history: 1, allow_direct: true });
  await jsm.consumers.add(stream, { durable_name: inboxDurable, filter_subject: `${prefix}.inbox.decision`, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, max_ack_pending: 256 });
  // The ledger's consumer as Runledger's batch consumers are: ack-all, one ack per delivery, in log order.
  await jsm.consumers.add(stream, { durable_name: ledger, filter_subject: `${prefix}.run.>`, ack_policy: AckPolicy.All, deliver_policy: DeliverPolicy.All, max_ack_pending: 512, ack_wait: 30_000_000_000 });
}

/** The floor as a system of the side-by-side bench (the same interface as bench/runledger-system.js). */
async function startFloor({ nats, nc, jsm }, variant = 'messages') {
  const { SERVICE_HEAP_FLAGS } = require('../scripts/lib/stack');
  const { inFlight } = require('./side-by-side');
  const { stream, subjects, ledger } = layout(variant);
  require('../scripts/build').build();
  await provisionFloor(jsm, nc, variant);
  const procs = ROLES.map((name) => {
    const child = spawn(process.execPath, [...SERVICE_HEAP_FLAGS, __filename, name, variant, nats.url, nats.creds.admin.file], { stdio: ['ignore', 'pipe', 'inherit'] });
    const ready = new Promise((resolve, reject) => {
      child.stdout.on('data', (chunk) => String(chunk).includes('ready') && resolve());
      child.once('exit', (code) => reject(new Error(`floor ${name} exited (code ${code})`)));
    });
    return { name: `${VARIANTS[variant]}-${name}`, child, ready };
  });
  await Promise.all(procs.map((p) => p.ready));
  const encoder = new TextEncoder();
  const run = async (req) => {
    const msg = await nc.request(subjects.request, encoder.encode(JSON.stringify({ request_id: req.request_id, user_id: req.user_id, message: req.message })), { timeout: 60_000 });
    const reply = JSON.parse(new TextDecoder().decode(msg.data));
    if (!reply.ok) throw new Error('floor: request failed');
  };
  // Warmed up as Runledger is before its rounds (bench.js: 20 requests, then 100 at c16).
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
  const [name, variant, url, creds] = process.argv.slice(2);
  role(name, variant, url, creds).catch((err) => {
    process.stderr.write(`floor ${name}: ${err.stack || err}\n`);
    process.exit(1);
  });
}

module.exports = { startFloor };
