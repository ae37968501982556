/**
 * Recorded history: the data directory `npm start` wrote under release c732176, the last release of log format 1
 * (one message per event), kept as test/fixtures/data-dir-c732176.tgz: its nats-server store (the log, buckets and
 * object store), its credentials and the audit ledger's signing key and signed head. Recorded with six task-assistant
 * requests, an ORCHESTRATOR run with its whole tree of child runs and an export, and a denied run.
 * test/fixtures/data-dir-c732176.expected.json holds what that release folded from it: every run's state and version.
 * The stack of this release must start on it, verify it, replay it and go on writing commits (format 2) after it.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { connect, NatsConnection } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type ConsumerInfo, type JetStreamManager } from '@nats-io/jetstream';
import { NatsKvDocumentStore } from '@runledger/document-store';
import { EventLog, LOG_STREAM, decodeMessage, type StoredEvent } from '@runledger/event-log';
import { decodeReply, encodeJson, identityOptions } from '@runledger/messaging';
import { chainEntriesOf } from '@runledger/governance';
import { RunRepository } from '@runledger/runs';
import { freePort, tempDir, type TempDir } from '@runledger/testing';
import { runCli } from './support/cli';
import expected from './fixtures/data-dir-c732176.expected.json';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const launcher = require('../scripts/lib/stack.js') as {
  SERVICES: string[];
  startNats(o: { port: number; storeDir: string; credsDir: string }): Promise<{ url: string; child: ChildProcess; creds: Record<string, { file: string; inboxPrefix: string }> }>;
  runBootstrap(o: { natsUrl: string; creds: unknown }): Promise<void>;
  startService(name: string, o: { natsUrl: string; creds: unknown; env: Record<string, string> }): { child: ChildProcess; ready: Promise<unknown> };
  stopProcess(child: ChildProcess, signal?: NodeJS.Signals, timeoutMs?: number): Promise<void>;
};

const FIXTURE = path.join(__dirname, 'fixtures', 'data-dir-c732176.tgz');
const RECORDED_CHAIN_ENTRIES = 130;

jest.setTimeout(240_000);

/**
 * Release c732176 left the ledger's durable ack-all (issue 12's batches); the releases after issue 22's review
 * (74e926e) created it with explicit acks, one per delivery. The recorded durable is made as such a release holds it,
 * at the same position (its ack floor), so this release's bootstrap must migrate it: the upgrade from either.
 */
async function asExplicitAckRelease(jsm: JetStreamManager): Promise<ConsumerInfo> {
  const recorded = await jsm.consumers.info(LOG_STREAM, 'audit-ledger');
  await jsm.consumers.delete(LOG_STREAM, 'audit-ledger');
  await jsm.consumers.add(LOG_STREAM, {
    durable_name: 'audit-ledger', filter_subject: recorded.config.filter_subject, ack_policy: AckPolicy.Explicit, max_deliver: -1,
    deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: recorded.ack_floor.stream_seq + 1,
  });
  return recorded;
}

describe('Recorded history: a data directory of log format 1 (release c732176) under this release', () => {
  let dir: TempDir;
  let nats: Awaited<ReturnType<typeof launcher.startNats>>;
  const services: ChildProcess[] = [];
  let admin: NatsConnection;
  let log: EventLog;
  /** The ledger's durable as recorded, before this release's bootstrap (made explicit-ack at its position: see asExplicitAckRelease). */
  let recordedDurable: ConsumerInfo;
  const cliEnv = (identity: string) => ({ NATS_CREDS: nats.creds[identity].file, NATS_INBOX_PREFIX: nats.creds[identity].inboxPrefix });

  beforeAll(async () => {
    dir = await tempDir('rl-recorded-');
    execFileSync('tar', ['xzf', FIXTURE, '-C', dir.path]);
    nats = await launcher.startNats({ port: await freePort(), storeDir: path.join(dir.path, 'nats'), credsDir: path.join(dir.path, 'credentials') });
    admin = await connect({ servers: nats.url, ...identityOptions({ creds: nats.creds.admin.file, inboxPrefix: nats.creds.admin.inboxPrefix }) });
    recordedDurable = await asExplicitAckRelease(await jetstreamManager(admin));
    await launcher.runBootstrap({ natsUrl: nats.url, creds: nats.creds });
    const started = launcher.SERVICES.map((name) => launcher.startService(name, { natsUrl: nats.url, creds: nats.creds, env: { RL_DATA_DIR: dir.path } }));
    services.push(...started.map((s) => s.child));
    await Promise.all(started.map((s) => s.ready));
    // The log as stored (sealed data left sealed): what the recording folded.
    log = new EventLog(jetstream(admin), await jetstreamManager(admin), { producer: 'test', clock: { now: () => new Date() } });
  });

  afterAll(async () => {
    await admin?.close().catch(() => undefined);
    await Promise.all(services.map((c) => launcher.stopProcess(c, 'SIGTERM', 3_000)));
    if (nats) await launcher.stopProcess(nats.child);
    await dir?.remove();
  });

  it('Recorded history: every run of the format-1 log folds to the state and version the release that wrote it folded', async () => {
    const repo = new RunRepository(log);
    const runs = Object.entries(expected.runs);
    expect(runs.length).toBeGreaterThan(20);
    for (const [runId, recorded] of runs) {
      const loaded = await repo.load(runId);
      expect({ run: runId, version: loaded.version, types: loaded.events.map((e) => e.type), state: JSON.parse(JSON.stringify(loaded.state)) }).toEqual({ run: runId, version: recorded.version, types: recorded.types, state: recorded.state });
      expect(loaded.events.every((e) => e.index === 0)).toBe(true);
    }
  });

  it('Recorded history: the audit chain written before commits verifies, and goes on across the commits written after it', async () => {
    const before = await runCli(nats.url, ['audit', 'verify'], cliEnv('operator'));
    expect(before.stdout).toContain(`audit chain OK: ${RECORDED_CHAIN_ENTRIES} entries`);
    expect(before.code).toBe(0);

    // A new request, as the caller: its appends are commits (format 2) on the same log.
    const caller = await connect({ servers: nats.url, ...identityOptions({ creds: nats.creds.caller.file, inboxPrefix: nats.creds.caller.inboxPrefix }) });
    let runId: string;
    try {
      const msg = await caller.request('agents.task-assistant.process', encodeJson({ user_id: 'alice', conversation_id: randomUUID(), message: 'add task water the plants' }), { timeout: 60_000 });
      const reply = decodeReply(msg.data, msg.headers);
      if (!reply.ok) throw new Error(`the request was refused: ${JSON.stringify(reply.error)}`);
      runId = (reply.body as { run_id: string }).run_id;
    } finally {
      await caller.close();
    }
    const events = await log.read(RunRepository.ref(runId, 'decision'));
    expect(events.map((e) => e.type)).toContain('RunCompleted');
    const commits = new Set(events.map((e) => e.seq));
    expect(commits.size).toBeLessThan(events.length); // at least one append carried several events as one message
    const stored = await (await jetstreamManager(admin)).streams.getMessage(LOG_STREAM, { seq: events[0].seq });
    expect(new TextDecoder().decode(stored!.data)).toMatch(/^\{"commit":\{"format":2,/);
    expect(decodeMessage(stored!.data).map((e) => e.type)).toEqual(events.filter((e) => e.seq === events[0].seq).map((e) => e.type));

    let after = await runCli(nats.url, ['audit', 'verify'], cliEnv('operator'));
    // The ledger chains asynchronously: the new run's entries are there once verify counts more than were recorded.
    for (let i = 0; i < 50 && !new RegExp(`OK: (?!${RECORDED_CHAIN_ENTRIES} )\\d+ entries`).test(after.stdout); i++) {
      await new Promise((r) => setTimeout(r, 200));
      after = await runCli(nats.url, ['audit', 'verify'], cliEnv('operator'));
    }
    expect(after.code).toBe(0);
    const entries = Number(/OK: (\d+) entries/.exec(after.stdout)?.[1]);
    expect(entries).toBeGreaterThan(RECORDED_CHAIN_ENTRIES);
  });

  it('Issue 23 migration: the ledger\'s durable of release c732176 (filter rl.log.run.*) takes both run subject formats (rl.log.run.>), kept at its position: no recorded run event is delivered again or skipped', async () => {
    const jsm = await jetstreamManager(admin);
    const durable = await jsm.consumers.info(LOG_STREAM, 'audit-ledger');
    expect(durable.config.filter_subject).toBe('rl.log.run.>');
    // Every legacy run event was settled before the migration and is still: the chain holds each once (verify above).
    const lastLegacy = await jsm.streams.getMessage(LOG_STREAM, { last_by_subj: 'rl.log.run.*' });
    expect(durable.ack_floor.stream_seq).toBeGreaterThanOrEqual(lastLegacy!.seq);
  });

  it('Issue 22 migration: the ledger\'s explicit-ack durable of the releases since 74e926e is created again ack-all at its ack floor + 1 (pulled and acked by audit-ledger-consumer): nothing settled is delivered again, nothing is skipped', async () => {
    expect(recordedDurable.ack_floor.stream_seq).toBeGreaterThan(0);
    const durable = await (await jetstreamManager(admin)).consumers.info(LOG_STREAM, 'audit-ledger');
    expect(durable.config).toMatchObject({ ack_policy: 'all', deliver_policy: 'by_start_sequence', opt_start_seq: recordedDurable.ack_floor.stream_seq + 1 });
    expect(durable.config.filter_subject).toBe('rl.log.run.>');
  });

  it('Recorded history: replaying the log of both formats rebuilds every read model with no differences', async () => {
    const replay = await runCli(nats.url, ['replay'], cliEnv('admin'), 180_000);
    expect(replay.stdout).toMatch(/no differences/i);
    expect(replay.code).toBe(0);
  });

  it('Issue 22 upgrade: rl.audit.query answers a recorded run from the audit_events row release c732176 wrote, and a run of this release from the log, each with the events the chain names for it', async () => {
    const entries = chainEntriesOf(await log.read('rl.log.audit.chain'));
    const recorded = Object.keys(expected.runs).find((id) => entries.some((e) => e.body.run_id === id))!;
    const current = String(entries[entries.length - 1].body.run_id); // chained after the recording (the request above)
    expect(entries.slice(0, RECORDED_CHAIN_ENTRIES).some((e) => e.body.run_id === current)).toBe(false);
    const operator = await connect({ servers: nats.url, ...identityOptions({ creds: nats.creds.operator.file, inboxPrefix: nats.creds.operator.inboxPrefix }) });
    try {
      for (const runId of [recorded, current]) {
        const msg = await operator.request('rl.audit.query', encodeJson({ run_id: runId }), { timeout: 30_000 });
        const reply = decodeReply(msg.data, msg.headers);
        if (!reply.ok) throw new Error(`rl.audit.query was refused: ${JSON.stringify(reply.error)}`);
        const events = (reply.body as { events: Array<{ event_id: string; chain_seq: number; type: string; data: unknown }> }).events;
        expect(events.map((e) => [e.event_id, e.chain_seq, e.type])).toEqual(entries.filter((e) => e.body.run_id === runId).map((e) => [e.event_id, e.seq, e.body.type]));
        expect(events.every((e) => e.data !== undefined)).toBe(true);
      }
    } finally {
      await operator.close();
    }
  });

  it('Issue 22 fewer messages: rl.audit.query by conversation answers a recorded task run from the audit_decisions document release c732176 wrote, and a run of this release from its runs_index row; audit_decisions is written no more', async () => {
    const { state: decided } = await log.replay<StoredEvent[]>((acc, e) => (e.type === 'DecisionRecorded' && acc.push(e), acc), [], { filter: 'rl.log.run.>' });
    const recordOf = (e: StoredEvent) => (e.data as { audit_record: { run_id: string; conversation_id: string; timestamp: string; decision_type: string } }).audit_record;
    const recorded = decided.filter((e) => e.metadata.stream_id in expected.runs);
    const current = decided.find((e) => !(e.metadata.stream_id in expected.runs))!; // the request above
    expect(recorded.length).toBeGreaterThan(0);
    const documents = await new NatsKvDocumentStore(admin).collection<Record<string, unknown>>('audit_decisions').find({});
    expect(documents.map((d) => d.id).sort()).toEqual(recorded.map((e) => recordOf(e).run_id).sort());
    const operator = await connect({ servers: nats.url, ...identityOptions({ creds: nats.creds.operator.file, inboxPrefix: nats.creds.operator.inboxPrefix }) });
    try {
      for (const event of [recorded[0], current]) {
        const expectedRecord = recordOf(event);
        const msg = await operator.request('rl.audit.query', encodeJson({ conversation_id: expectedRecord.conversation_id }), { timeout: 30_000 });
        const reply = decodeReply(msg.data, msg.headers);
        if (!reply.ok) throw new Error(`rl.audit.query was refused: ${JSON.stringify(reply.error)}`);
        const records = (reply.body as { records: Array<Record<string, unknown>> }).records;
        expect(records.filter((r) => r.run_id === expectedRecord.run_id)).toEqual([expect.objectContaining({ conversation_id: expectedRecord.conversation_id, timestamp: expectedRecord.timestamp, decision_type: expectedRecord.decision_type })]);
      }
    } finally {
      await operator.close();
    }
  });
});
