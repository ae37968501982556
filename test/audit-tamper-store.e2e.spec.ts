import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { TEST_ADMIN } from '@runledger/testing';
import { connectionOf, LOG_STREAM, logStreamConfig, readSequences, storedEvents, writerHeaders, type StoredMessage } from '@runledger/event-log';
import { chainEntriesOf } from '@runledger/governance';
import { TestStack } from './support/stack';

jest.setTimeout(300_000);

const CLI = join(__dirname, '..', 'scripts', 'runledger.js');

/** Every file under `dir` whose path ends with `suffix`. */
function filesUnder(dir: string, test: (path: string) => boolean): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...filesUnder(full, test));
    else if (test(full)) out.push(full);
  }
  return out;
}

/** The log sequence of the message `send` has the server store on `subject` (the subject's last once it moved). */
async function storedThrough(jsm: JetStreamManager, subject: string, send: () => void): Promise<number> {
  const last = async () => (await jsm.streams.getMessage(LOG_STREAM, { last_by_subj: subject }).catch(() => null))?.seq ?? 0;
  const before = await last();
  send();
  for (;;) {
    const now = await last();
    if (now > before) return now;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Issue 23, verify names tampering: `runledger audit verify` reads the log as one snapshot, message by message, so a
 * stored message edited on disk is a verdict naming its log sequence (it waited 40 s and answered DEPENDENCY.DOWN),
 * and a verification right after a burst, while the ledger is still chaining, is not a false "truncated".
 */
describe('Issue 23: audit verify names a damaged stored message, reads one consistent snapshot, and fails on a replaced log', () => {
  let stack: TestStack;
  let witness: string;
  const burst: string[] = [];
  const runledger = (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      execFile(process.execPath, [CLI, 'audit', ...args], { env: { ...process.env, ...stack.cliEnv('operator') }, timeout: 120_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
      });
    });
  const addTask = async (task: string): Promise<string> => {
    const reply = await stack.request<{ run_id: string }>('agents.task-assistant.process', { user_id: 'u-tamper', conversation_id: randomUUID(), message: `add task ${task}` }, 60_000);
    expect(reply.ok).toBe(true);
    return reply.body.run_id;
  };

  beforeAll(async () => {
    stack = await TestStack.start();
  }, 600_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('Issue 23 consistent snapshot: verify right after a burst of requests, while the ledger still chains, answers OK (never a false truncated)', async () => {
    burst.push(...(await Promise.all(Array.from({ length: 12 }, (_, i) => addTask(`burst item ${i}`)))));
    const verdict = await runledger('verify');
    expect(verdict.stdout).not.toMatch(/truncated/);
    expect(verdict.stdout).toMatch(/audit chain OK/);
    expect(verdict.code).toBe(0);
  });

  it('Issue 23 anchor: `audit anchor export` writes a witness copy (signed head, key, the log\'s identity) and verify --anchor checks against it', async () => {
    witness = join(stack.nats.storeDir, '..', `witness-${randomUUID()}.json`);
    const exported = await runledger('anchor', 'export', '--out', witness);
    expect(exported.code).toBe(0);
    const w = JSON.parse(readFileSync(witness, 'utf8')) as { log: { stream: string; first_seq: number }; checkpoint: { seq: number } };
    expect(w.log).toMatchObject({ stream: LOG_STREAM, first_seq: 1 });
    expect(w.checkpoint.seq).toBeGreaterThan(0);
    const verdict = await runledger('verify', '--anchor', witness);
    expect(verdict.stdout).toMatch(/audit chain OK/);
    expect(verdict.code).toBe(0);
  });

  it('Issue 23 foreign messages: JetStream answers the server stores on log subjects (an insider names them as a request\'s reply subject; a stream info, a 404 and a 408 status) are skipped by every reader; the run reads as it ended, verify stays OK and names each', async () => {
    // The insider: the operator may ask JetStream questions; nats-server publishes the answer to whatever reply subject
    // the request names, and the log stores it there (no permission can refuse it).
    const ended = burst[0];
    const before = await stack.runEvents(ended);
    const operator = await stack.connectAs('operator');
    try {
      const jsm = await jetstreamManager(stack.nc);
      const answer = await storedThrough(jsm, before[0].subject, () => operator.publish(`$JS.API.STREAM.INFO.${LOG_STREAM}`, new Uint8Array(), { reply: before[0].subject }));
      // Empty answers with a status line of their own (probe): a direct get for a sequence the log lacks (`404`) after
      // the run's end, and a malformed one (`408`) on a subject verify does not audit. Read as "none" or as a failed read,
      // they hid the run and failed verify for good.
      const notFound = await storedThrough(jsm, before[0].subject, () => operator.publish(`$JS.API.DIRECT.GET.${LOG_STREAM}`, new TextEncoder().encode('{"seq":999999999}'), { reply: before[0].subject }));
      const malformed = await storedThrough(jsm, 'rl.log.audit.keys', () => operator.publish(`$JS.API.DIRECT.GET.${LOG_STREAM}`, new TextEncoder().encode('garbage'), { reply: 'rl.log.audit.keys' }));
      // The run still reads as it was: the answer after its terminal event hides nothing.
      expect((await stack.runEvents(ended)).map((e) => e.metadata.event_id)).toEqual(before.map((e) => e.metadata.event_id));
      const state = await stack.request('rl.runs.get', { run_id: ended });
      expect(JSON.stringify(state.body)).toContain('"status":"completed"');

      const verdict = await runledger('verify');
      expect(verdict.stdout).toMatch(/audit chain OK/);
      expect(verdict.stdout).toContain(`3 log message(s) no Runledger writer made, skipped by every reader`);
      for (const seq of [answer, notFound, malformed]) expect(verdict.stdout).toContain(`log message ${seq} carries no writer's header`);
      // For scripts: the verdict itself (README: every command's --json).
      const asJson = await runledger('verify', '--json');
      expect(asJson.code).toBe(0);
      expect(JSON.parse(asJson.stdout)).toMatchObject({ ok: true, foreign_messages: { count: 3, first: [answer, notFound, malformed].map((log_seq) => expect.objectContaining({ log_seq })) } });
      // A caller's run, a conversation turn and the chain go on after them.
      expect(await addTask('after the server\'s answers')).toBeTruthy();
      expect((await runledger('verify')).code).toBe(0);
      expect(verdict.code).toBe(0);
    } finally {
      await operator.close();
    }
  });

  it('Issue 23 tamper: a writer\'s message on a run subject that is not a commit of events fails verify with damaged_message naming its log sequence', async () => {
    const ack = await jetstream(stack.nc).publish(`rl.log.run.${randomUUID()}`, new TextEncoder().encode('{"commit":{"format":2,"events":[{"id":'), { headers: writerHeaders('RunCreated') });
    const verdict = await runledger('verify');
    expect(verdict.stdout).toContain(`audit log BROKEN at log message ${ack.seq}: damaged_message`);
    expect(verdict.stdout).toContain("is a writer's message but not a commit of events");
    expect(verdict.code).toBe(1);
  });

  it('Issue 23 tamper: a one-byte edit of an event body in the stored file fails verify at once with damaged_message naming its log sequence (not DEPENDENCY.DOWN)', async () => {
    // A run stored before the message above: the first damage in log order is the one named.
    const events = await stack.runEvents(burst[0]);
    const target = events[events.length - 1];
    const needle = Buffer.from(target.metadata.event_id);
    await stack.nats.restart(() => {
      const blocks = filesUnder(stack.nats.storeDir, (p) => p.includes(`${LOG_STREAM}/msgs/`) && p.endsWith('.blk'));
      const file = blocks.find((f) => readFileSync(f).includes(needle));
      if (!file) throw new Error(`event ${target.metadata.event_id} not found in the log's block files`);
      const bytes = readFileSync(file);
      const at = bytes.indexOf(needle);
      bytes[at] = bytes[at] === 0x61 ? 0x62 : 0x61; // one byte of the event's body ('a' <-> 'b': still valid JSON)
      writeFileSync(file, bytes);
    });
    // The ledger reconnects to the restarted nats-server on its own schedule: until then nobody serves verify.
    const verdict = await stack.waitFor(async () => {
      const v = await runledger('verify');
      return /nobody answers/.test(v.stderr) ? null : v;
    }, 60_000);
    expect(verdict.stdout).toContain(`audit log BROKEN at log message ${target.seq}: damaged_message`);
    expect(verdict.code).toBe(1);
  });

  /** As the admin: the log deleted and created again holding `keep` of its messages (subjects, bodies and headers as stored). */
  const recreateLog = async (keep: (m: StoredMessage, all: StoredMessage[]) => boolean): Promise<void> => {
    // A fresh admin connection: the suite's own may still be reconnecting after the nats-server restart above.
    const nc = await stack.connectAs(TEST_ADMIN);
    try {
      await replaceLog(nc, keep);
    } finally {
      await nc.close();
    }
  };
  const replaceLog = async (nc: NatsConnection, keep: (m: StoredMessage, all: StoredMessage[]) => boolean): Promise<void> => {
    const jsm = await jetstreamManager(nc, { timeout: 30_000 });
    const info = await jsm.streams.info(LOG_STREAM);
    const all: StoredMessage[] = [];
    await readSequences(connectionOf(jsm), LOG_STREAM, info.state.first_seq, info.state.last_seq, (r) => {
      if (!('missing' in r)) all.push(r);
    });
    await jsm.streams.delete(LOG_STREAM);
    await jsm.streams.add(logStreamConfig());
    const js = jetstream(nc);
    for (const m of all.filter((m) => keep(m, all))) {
      const h = natsHeaders();
      for (const [k, v] of m.headers ?? []) if (!k.startsWith('Nats-')) for (const value of v) h.append(k, value);
      await js.publish(m.subject, m.data, { headers: h });
    }
  };

  it('Issue 23 anchor: a log deleted and created again without its last chain batch fails verify (log_replaced), against the ledger\'s anchor and the witness', async () => {
    // A witness of the chain as it is now; the log comes back without the chain batch that holds its head.
    expect((await runledger('anchor', 'export', '--out', witness)).code).toBe(0);
    const headSeq = (JSON.parse(readFileSync(witness, 'utf8')) as { checkpoint: { seq: number } }).checkpoint.seq;
    await recreateLog((m) => m.subject !== 'rl.log.audit.chain' || chainEntriesOf(storedEvents(m)).every((e) => e.seq < headSeq));
    for (const args of [['verify'], ['verify', '--anchor', witness]]) {
      const verdict = await runledger(...args);
      expect(verdict.stdout).toMatch(/BROKEN at entry 1: log_replaced/);
      expect(verdict.code).toBe(1);
    }
    // What the recreated log's chain holds, checked against the witness: its last batch is missing.
    const copy = join(stack.nats.storeDir, '..', `chain-${randomUUID()}.jsonl`);
    expect((await runledger('export', '--out', copy)).code).toBe(0);
    const checked = await runledger('verify', '--file', copy, '--head', witness, '--public-key', witness);
    expect(checked.stdout).toMatch(/: truncated/);
    expect(checked.code).toBe(1);
  });

  it('Issue 23 anchor: a wiped log (deleted, created again empty) fails verify with the witness even when the ledger\'s anchor file is gone', async () => {
    await recreateLog(() => false);
    const heads = join(stack.auditKeyFile, '..', 'heads');
    for (const f of readdirSync(heads)) writeFileSync(join(heads, f), '');
    const verdict = await runledger('verify', '--anchor', witness);
    expect(verdict.stdout).toMatch(/BROKEN at entry 1: log_replaced/);
    expect(verdict.code).toBe(1);
  });
});
