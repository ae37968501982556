import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeliverPolicy, jetstreamManager } from '@nats-io/jetstream';
import { createInbox, type Msg } from '@nats-io/transport-node';
import { aggregateRef, decodeMessage, LOG_STREAM } from '@runledger/event-log';
import { CHAINED_EVENT_TYPES } from '../services/audit-ledger/src/domain/audit-chain';
import { chainEntriesOf, chainEntry, computeEntryHash, type ChainEntry } from '@runledger/governance';
import { tempDir, type TempDir } from '@runledger/testing';
import { TestStack } from './support/stack';

jest.setTimeout(240_000);

const CLI = join(__dirname, '..', 'scripts', 'runledger.js');

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

describe('Audit ledger: `runledger audit verify` reports the first broken link of the anchored hash chain', () => {
  let stack: TestStack;
  let dir: TempDir;
  let keyFile: string;
  let publicKey: string;
  let exported: string;
  let chain: ChainEntry[];
  const runIds: string[] = [];

  /** The operator command as operators run it: a separate node process against the stack's NATS. */
  const runledger = (...args: string[]): Promise<CliRun> =>
    new Promise((resolve) => {
      execFile(process.execPath, [CLI, 'audit', ...args], { env: { ...process.env, ...stack.cliEnv('operator') }, timeout: 90_000 }, (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      });
    });
  const verifyCopy = (name: string, entries: readonly ChainEntry[], ...extra: string[]): Promise<CliRun> => {
    const file = join(dir.path, name);
    writeFileSync(file, entries.map((e) => JSON.stringify(e)).join('\n') + '\n');
    return runledger('verify', '--file', file, '--public-key', publicKey, ...extra);
  };
  const clone = (): ChainEntry[] => JSON.parse(JSON.stringify(chain)) as ChainEntry[];
  const addTask = async (task: string): Promise<string> => {
    const reply = await stack.request<{ run_id: string }>('agents.task-assistant.process', { user_id: 'u-audit', conversation_id: randomUUID(), message: `add task ${task}` });
    expect(reply.ok).toBe(true);
    return reply.body.run_id;
  };
  /** The ledger chains in log order: once a run's outcome is indexed, everything before it is chained. */
  const chainedThrough = (runId: string) =>
    stack.waitFor(async () => {
      const q = await stack.request<{ events?: Array<{ type: string }> }>('rl.audit.query', { run_id: runId });
      return q.body.events?.some((e) => e.type === 'RunCompleted');
    }, 30_000);

  /** Once `runId` is indexed, every event of `hidden` is in the chain and the live chain verifies OK. */
  const expectChainedOnceIndexed = async (runId: string, hidden: readonly string[]) => {
    await chainedThrough(runId);
    const chained = new Set(chainEntriesOf(await stack.log.read(aggregateRef('audit', 'chain'))).map((e) => e.event_id));
    expect(hidden.filter((id) => !chained.has(id))).toEqual([]);
    const r = await runledger('verify');
    expect(r.stdout).toMatch(/^audit chain OK/);
    expect(r.code).toBe(0);
  };

  beforeAll(async () => {
    dir = await tempDir('audit-verify-');
    keyFile = join(dir.path, 'data', 'audit', 'signing-key.pem');
    publicKey = join(dir.path, 'data', 'audit', 'signing-key.pub.pem');
    stack = await TestStack.start({ serviceEnv: { 'audit-ledger': { RL_AUDIT_KEY_FILE: keyFile } } });
    // Task-assistant runs give the chain real entries: runs, authorisations, tool and db_write audits, outcomes.
    for (const task of ['water the plants', 'call the plumber', 'renew the passport']) runIds.push(await addTask(task));
    await chainedThrough(runIds[runIds.length - 1]);
  });
  afterAll(async () => {
    await stack?.stop();
    await dir?.remove();
  });

  it('Issue 9 anchored chain: the signing key is generated on first start outside the log (mode 0600); only its public half is recorded', async () => {
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const pem = readFileSync(publicKey, 'utf8');
    const keys = await stack.log.read(aggregateRef('audit', 'keys'));
    expect(keys.map((e) => e.type)).toEqual(['AuditSigningKeyPublished']);
    expect(keys[0].data).toMatchObject({ algorithm: 'Ed25519', public_key_pem: pem });
    const { state: privateInLog } = await stack.log.replay((n, e) => n + (JSON.stringify(e).includes('PRIVATE KEY') ? 1 : 0), 0);
    expect(privateInLog).toBe(0);
  });

  it('Issue 9 anchored chain: the live chain and an exported copy both verify OK with signed checkpoints, same length and head', async () => {
    const live = await runledger('verify');
    expect(live.code).toBe(0);
    const [, liveCount, liveHead] = /^audit chain OK: (\d+) entries, head ([0-9a-f]{64})$/m.exec(live.stdout) ?? [];
    expect(Number(liveCount)).toBeGreaterThanOrEqual(20);
    expect(live.stdout).toMatch(/^signed checkpoint at entry \d+ by key [0-9a-f]{32}$/m);

    exported = join(dir.path, 'chain.jsonl');
    const exportRun = await runledger('export', '--out', exported);
    expect(exportRun.code).toBe(0);
    chain = readFileSync(exported, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as ChainEntry);
    expect(chain.map((e) => e.seq)).toEqual(chain.map((_, i) => i + 1));
    // One signed checkpoint per chain message, on its last entry: every checkpoint names its own entry and the head is signed.
    expect(chain.filter((e) => e.checkpoint).every((e) => e.checkpoint?.entry_hash === e.entry_hash && e.checkpoint.seq === e.seq)).toBe(true);
    expect(chain[chain.length - 1].checkpoint?.entry_hash).toBe(chain[chain.length - 1].entry_hash);
    expect(chain.length).toBeGreaterThanOrEqual(Number(liveCount));
    expect(chain[Number(liveCount) - 1].entry_hash).toBe(liveHead);

    const offline = await runledger('verify', '--file', exported, '--public-key', publicKey);
    expect(offline).toMatchObject({ code: 0 });
    expect(offline.stdout).toContain(`audit chain OK: ${chain.length} entries, head ${chain[chain.length - 1].entry_hash}\n`);
    // Without a pinned key an offline check cannot tell the ledger's signatures from a forger's: it refuses.
    const unpinned = await new Promise<CliRun>((resolve) => {
      execFile(process.execPath, [CLI, 'audit', 'verify', '--file', exported], { env: { ...process.env, RL_DATA_DIR: join(dir.path, 'nowhere') }, timeout: 60_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? Number(err.code) : 0, stdout, stderr }));
    });
    expect(unpinned.code).toBe(2);
    expect(unpinned.stderr).toMatch(/no public key/);
  });

  it('README "Operator commands", offline audit verify: an exported copy verifies without any stack, also where NATS_CREDS or NATS_CONTEXT names nothing (never read offline)', async () => {
    const stale = { NATS_URL: 'nats://127.0.0.1:1', NATS_CREDS: '/nonexistent/operator.creds', NATS_CONTEXT: 'no-such-context-rl' };
    const offline = await new Promise<CliRun>((resolve) => {
      execFile(process.execPath, [CLI, 'audit', 'verify', '--file', exported, '--public-key', publicKey], { env: { ...process.env, ...stale }, timeout: 60_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? Number(err.code) : 0, stdout, stderr }));
    });
    expect(offline).toMatchObject({ code: 0, stderr: '' });
    expect(offline.stdout).toContain(`audit chain OK: ${chain.length} entries, head ${chain[chain.length - 1].entry_hash}\n`);
  });

  // Entry 5 sits among the first run's events; every tampering below touches a copy, never the log.
  const K = 5;

  it('Issue 9 tamper edit: an edited entry is caught at that entry (hash_mismatch)', async () => {
    const entries = clone();
    entries[K - 1].body.type = 'RunCompleted';
    const r = await verifyCopy('edited.jsonl', entries);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^audit chain BROKEN at entry ${K}: hash_mismatch`));
  });

  it('Audit ledger: a deleted entry is caught where it is missing (sequence_gap)', async () => {
    const entries = clone();
    entries.splice(K - 1, 1);
    const r = await verifyCopy('deleted.jsonl', entries);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^audit chain BROKEN at entry ${K}: sequence_gap`));
  });

  it('Audit ledger: two swapped entries are caught at the first of them (reordered)', async () => {
    const entries = clone();
    [entries[K - 1], entries[K]] = [entries[K], entries[K - 1]];
    const r = await verifyCopy('reordered.jsonl', entries);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^audit chain BROKEN at entry ${K}: reordered`));
  });

  it('Issue 9 tamper rehash: an entry edited and every hash recomputed to the end is caught at the edit (signature_invalid)', async () => {
    const entries = clone();
    // The ledger signs the last entry of each batch: edit the first entry of a batch (one right after a checkpoint),
    // where the proof of the whole batch starts.
    const K = entries.findIndex((e, i) => i >= 4 && i < entries.length - 1 && entries[i - 1].checkpoint) + 1;
    expect(K).toBeGreaterThan(4);
    entries[K - 1].body = { ...entries[K - 1].body, type: 'RunCompleted' };
    for (let i = K - 1; i < entries.length; i++) {
      if (i > 0) entries[i].prev_hash = entries[i - 1].entry_hash;
      entries[i].entry_hash = computeEntryHash(entries[i]);
    }
    const r = await verifyCopy('rehashed.jsonl', entries);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^audit chain BROKEN at entry ${K}: signature_invalid`));
    // Dropping the checkpoints the forger cannot make leaves the rehashed part unanchored.
    for (let i = K - 1; i < entries.length; i++) delete entries[i].checkpoint;
    const stripped = await verifyCopy('rehashed-unsigned.jsonl', entries);
    expect(stripped.stdout).toMatch(new RegExp(`^audit chain BROKEN at entry ${K}: unanchored_tail`));
  });

  it('Issue 9 tamper append: a correctly hashed entry appended to a copy is caught (unanchored_tail)', async () => {
    const entries = clone();
    const forged = chainEntry(entries[entries.length - 1], { ...entries[0].body, event_id: randomUUID(), type: 'RunCompleted' }, entries.length + 1);
    const r = await verifyCopy('appended.jsonl', [...entries, forged]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^audit chain BROKEN at entry ${entries.length + 1}: unanchored_tail`));
  });

  it('Issue 25 audit verify --file: a truncated export is named truncated, not "appended by someone without the signing key"', async () => {
    const full = join(dir.path, 'full-for-cut.jsonl');
    expect((await runledger('export', '--out', full)).code).toBe(0);
    const text = readFileSync(full, 'utf8');
    // Cut inside the last entry, as a copy stopped part way writes it.
    const cutFile = join(dir.path, 'cut-mid-line.jsonl');
    writeFileSync(cutFile, text.slice(0, text.length - 40));
    const entries = text.trim().split('\n').length;
    const cut = await runledger('verify', '--file', cutFile, '--public-key', publicKey);
    expect(cut.code).toBe(1);
    expect(cut.stdout).toBe(`audit chain BROKEN at entry ${entries}: truncated — the copy ends inside entry ${entries} (its last line, ${entries}, is cut off): the export was truncated\n`);
    // Cut between lines inside a batch: the unsigned tail is named as a truncation or an append, never only as an append.
    const lines = text.trim().split('\n');
    const unsigned = lines.map((l) => JSON.parse(l) as ChainEntry).map((e) => e.checkpoint === undefined).lastIndexOf(true);
    expect(unsigned).toBeGreaterThanOrEqual(0); // a batch of more than one entry: its first entries carry no checkpoint
    const atLine = join(dir.path, 'cut-at-line.jsonl');
    writeFileSync(atLine, lines.slice(0, unsigned + 1).join('\n') + '\n');
    const lineCut = await runledger('verify', '--file', atLine, '--public-key', publicKey);
    expect(lineCut.code).toBe(1);
    expect(lineCut.stdout).toMatch(/: unanchored_tail — the copy ends after its last signed checkpoint: it was truncated inside a batch/);
  });

  it('Issue 9 tamper truncate: a copy with its tail cut is caught against the signed head (`audit head`)', async () => {
    const headFile = join(dir.path, 'head.json');
    expect((await runledger('head', '--out', headFile)).code).toBe(0);
    const head = JSON.parse(readFileSync(headFile, 'utf8')) as { checkpoint: { seq: number } };
    expect(head.checkpoint.seq).toBeGreaterThanOrEqual(chain.length);
    // The exported copy is a prefix of the current chain: take the chain again so it reaches the head.
    const full = join(dir.path, 'full.jsonl');
    expect((await runledger('export', '--out', full)).code).toBe(0);
    const entries = readFileSync(full, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as ChainEntry).slice(0, head.checkpoint.seq);
    expect((await verifyCopy('whole.jsonl', entries, '--head', headFile)).code).toBe(0);
    const cut = await verifyCopy('truncated.jsonl', entries.slice(0, entries.length - 3), '--head', headFile);
    expect(cut.code).toBe(1);
    expect(cut.stdout).toMatch(new RegExp(`^audit chain BROKEN at entry ${entries.length - 2}: truncated`));
  });

  it('Issue 9 completeness: commits the ledger\'s consumer identity pulls from its durable while the ledger runs are chained all the same (`audit verify` OK)', async () => {
    // Whoever holds `audit-ledger-consumer`'s key, pulling the ledger's durable beside it: the server gives its pull
    // request a turn, so it is handed one of the next commits, and acks it to hide it.
    const thief = await stack.connectAs('audit-ledger-consumer');
    try {
      // A subscription of its own: a pull delivery carries the stream's subject, not the inbox a request's answer is matched by.
      const inbox = createInbox(stack.nats.creds['audit-ledger-consumer'].inboxPrefix);
      let taken: Msg | undefined;
      thief.subscribe(inbox, { max: 1, callback: (_err, m) => void (taken = m) });
      thief.publish(`$JS.API.CONSUMER.MSG.NEXT.${LOG_STREAM}.audit-ledger`, JSON.stringify({ batch: 1, expires: 60_000_000_000 }), { reply: inbox });
      await thief.flush();
      await stack.waitFor(async () => {
        if (!taken) await addTask(`hidden ${randomUUID()}`);
        return taken !== undefined;
      }, 60_000);
      const hidden = decodeMessage(taken!.data).filter((e) => CHAINED_EVENT_TYPES.has(e.type)).map((e) => e.metadata.event_id);
      expect(hidden.length).toBeGreaterThan(0); // every run commit of a task holds an audited event
      thief.publish(taken!.reply!, '+ACK');
      await thief.flush();
      // The ledger's next acknowledgement settles the taken commit too: it must have read it back and chained it first.
      await expectChainedOnceIndexed(await addTask('after the theft'), hidden);
    } finally {
      await thief.close();
    }
  });

  it('Issue 9 completeness: commits taken from the ledger\'s durable and acked while no ledger runs are chained when it starts again (`audit verify` OK)', async () => {
    await stack.kill('audit-ledger', 'SIGTERM');
    // A task's commits while the ledger is stopped; whoever holds the consumer identity's key takes and acks them all.
    const runId = await addTask('while the ledger is away');
    const thief = await stack.connectAs('audit-ledger-consumer');
    const hidden: string[] = [];
    try {
      const inbox = createInbox(stack.nats.creds['audit-ledger-consumer'].inboxPrefix);
      const sub = thief.subscribe(inbox);
      thief.publish(`$JS.API.CONSUMER.MSG.NEXT.${LOG_STREAM}.audit-ledger`, JSON.stringify({ batch: 64, no_wait: true }), { reply: inbox });
      let last: Msg | undefined;
      for await (const m of sub) {
        if (!m.reply) break; // the server's "no more messages" status ends the batch
        hidden.push(...decodeMessage(m.data).filter((e) => CHAINED_EVENT_TYPES.has(e.type)).map((e) => e.metadata.event_id));
        last = m;
      }
      expect(last).toBeDefined();
      thief.publish(last!.reply!, '+ACK'); // the durable acks all: this settles every commit taken
      await thief.flush();
    } finally {
      await thief.close();
    }
    expect(hidden.length).toBeGreaterThan(0);
    await stack.startService('audit-ledger');
    await expectChainedOnceIndexed(runId, hidden);
  });

  it('Issue 9 completeness: an audit-relevant event the ledger never chained (its durable made again past it, as only the admin may) fails live verification', async () => {
    const runId = await addTask('check completeness');
    await chainedThrough(runId);
    await stack.waitFor(async () => (await runledger('verify')).code === 0, 30_000);
    // Stop the ledger, log an audit event and make the ledger's durable again after it: the ledger is never handed it.
    await stack.kill('audit-ledger', 'SIGTERM');
    const lostRun = randomUUID();
    const appended = await stack.log.append(aggregateRef('run', lostRun), [{ type: 'RunCreated', data: { run_id: lostRun, run_kind: 'db_write', agent_name: 'task-assistant', root_run_id: lostRun, contract_version: 'v1', policy_versions: { lanes: 'seed', roles: 'seed' }, input_artifacts: [], parameters: {}, request_hash_sha256: '0'.repeat(64) }, metadata: { run_id: lostRun } }], { commandId: randomUUID(), expectedVersion: 0 });
    const jsm = await jetstreamManager(stack.nc);
    const { config } = await jsm.consumers.info(LOG_STREAM, 'audit-ledger');
    await jsm.consumers.delete(LOG_STREAM, 'audit-ledger');
    await jsm.consumers.add(LOG_STREAM, { durable_name: 'audit-ledger', filter_subject: config.filter_subject, ack_policy: config.ack_policy, ack_wait: config.ack_wait, max_ack_pending: config.max_ack_pending, max_deliver: config.max_deliver, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: appended.version + 1 });
    await stack.startService('audit-ledger');
    // Verification covers what the ledger has acked: a later run, chained, moves that past the lost event.
    await chainedThrough(await addTask('after the lost event'));
    const r = await runledger('verify');
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^audit chain BROKEN at entry \d+: missing_event/);
    expect(r.stdout).toContain(appended.events[0].metadata.event_id);
  });

  it('Issue 9 tamper append: a correctly hashed entry appended to the live chain by someone without the key is caught (unanchored_tail)', async () => {
    const tail = chainEntriesOf(await stack.log.read(aggregateRef('audit', 'chain')));
    const last = tail[tail.length - 1];
    const forged = chainEntry({ ...last, checkpoint: undefined }, { ...last.body, event_id: randomUUID(), type: 'RunCompleted' }, last.seq + 1);
    await stack.log.append(aggregateRef('audit', 'chain'), [{ type: 'AuditChainEntry', data: forged }], { commandId: randomUUID(), expectedVersion: await stack.log.version(aggregateRef('audit', 'chain')) });
    const r = await runledger('verify');
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^audit chain BROKEN at entry ${last.seq + 1}: unanchored_tail`));
  });
});
