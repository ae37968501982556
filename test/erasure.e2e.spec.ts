/**
 * Issue 9, erasure in an immutable log (README "Erasure"): personal and case data inside events is sealed with a
 * per-user or per-case data key; `runledger erase` destroys the key, after which the log and the audit chain still
 * verify but the data reads as erased everywhere, other owners' data is intact, and nothing new is stored for the
 * erased owner (DATA.ERASED).
 */
import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { Objm } from '@nats-io/obj';
import type { AgentRunResponse } from '@runledger/contracts';
import { aggregateRef } from '@runledger/event-log';
import { deterministicUuid } from '@runledger/kernel';
import { DATA_KEYS_BUCKET, encodeJson, ERASED_TEXT, ERASED_VALUE } from '@runledger/messaging';
import { RunRepository } from '@runledger/runs';
import { runCli } from './support/cli';
import { ConsoleUnderTest } from './support/console';
import { policyVersionsIn, runTree, RunView, SHIPPED_POLICY_DIR, START, startRun, uploadCase } from './support/governed-runs';
import { TestStack } from './support/stack';
import { AUDIT_QUERY, AuditRow, Conversation, send } from './support/task-assistant';

jest.setTimeout(300_000);

const versions = policyVersionsIn(SHIPPED_POLICY_DIR);
/**
 * The one store meant to hold plaintext (README "Erasure"): the artifacts, securely erased with their case. Every other
 * stream must not; the domain documents (task rows, case documents) are sealed at rest since issue 23.
 */
const PLAINTEXT_STORES = new Set(['OBJ_rl_artifacts']);

interface RunGet {
  status: string;
  run: { parameters: Record<string, unknown> };
  result?: unknown;
  events: Array<{ type: string; data: Record<string, unknown> }>;
}

describe('Issue 9 erasure: erasure works without breaking verification', () => {
  let stack: TestStack;
  const tag = randomUUID().slice(0, 8);
  const alice = { tasks: [`buy zebrafruit for grandma ${tag}`, `call dr quimby about the biopsy ${tag}`] };
  const bobTask = `water the ficus ${tag}`;
  const ALICE_TEXT = ['zebrafruit', 'quimby', 'biopsy'];
  const CASE_TEXT = ['Dana Reyes', 'Tom Baker', 'overtime', 'dana@example.com', 'Acme Widgets', 'retaliation'];
  const caseA = `case-a-${tag}`;
  const caseB = `case-b-${tag}`;
  let aliceConv: Conversation;
  let bobConv: Conversation;
  let aliceRuns: string[];
  let bobRun: string;
  let workflow: AgentRunResponse;
  let treeA: RunView[];
  let intakeB: AgentRunResponse;

  const cli = (identity: string, ...args: string[]) => runCli(stack.url, args, stack.cliEnv(identity));
  const runGet = async (runId: string): Promise<RunGet> => {
    const r = await stack.request<RunGet>('rl.runs.get', { run_id: runId, include_events: true });
    if (!r.ok) throw new Error(`rl.runs.get ${runId}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  let operatorConsole: ConsoleUnderTest | undefined;
  /** A run's page in the operator console (`runledger console`, signed in). */
  const consoleRun = async (runId: string) => {
    operatorConsole ??= await ConsoleUnderTest.start(stack);
    const page = await operatorConsole.get(`/runs/${runId}`);
    expect(page.status).toBe(200);
    return page.body;
  };
  const auditRecords = async (conversationId: string) => {
    const r = await stack.request<{ records: AuditRow[] }>(AUDIT_QUERY, { conversation_id: conversationId });
    return r.ok ? r.body.records : [];
  };

  /** Every message of every stream (the log, every KV bucket, the object store) whose raw bytes contain a needle, but the stores meant to hold plaintext. */
  async function plaintextIn(needles: string[], opts: { everywhere?: boolean } = {}): Promise<string[]> {
    const jsm = await jetstreamManager(stack.nc);
    const hits: string[] = [];
    for await (const s of jsm.streams.list()) {
      if (!opts.everywhere && PLAINTEXT_STORES.has(s.config.name)) continue;
      if (s.config.name.startsWith('KV_rl_replay_')) continue;
      for (let seq = s.state.first_seq; s.state.messages > 0 && seq <= s.state.last_seq; seq++) {
        const m = await jsm.streams.getMessage(s.config.name, { seq }).catch(() => null);
        if (!m) continue;
        const text = new TextDecoder().decode(m.data) + JSON.stringify(m.header ? [...m.header.keys()].map((k) => m.header!.get(k)) : []);
        for (const n of needles) if (text.includes(n)) hits.push(`${s.config.name} ${m.subject}: ${n}`);
      }
    }
    return hits;
  }

  beforeAll(async () => {
    stack = await TestStack.start();
    // A realistic workload: two users of the task assistant, a whole case workflow, and a second case.
    aliceConv = new Conversation(stack, `u-alice-${tag}`);
    bobConv = new Conversation(stack, `u-bob-${tag}`);
    await aliceConv.add(...alice.tasks);
    await aliceConv.say(`mark ${alice.tasks[0]} as done`);
    await aliceConv.say('show my tasks');
    await bobConv.add(bobTask);
    const inputsA = await uploadCase(stack, caseA, versions);
    workflow = await startRun(stack, {
      agent_name: 'ORCHESTRATOR', case_id: caseA, correlation_id: `corr-${tag}`,
      input_artifacts: [inputsA.form, inputsA.recording, inputsA.document],
      parameters: { client_session_id: 'session-1', coa_version: 'coa-2026.1', export: true },
    });
    expect(workflow.outcome).toBe('success');
    const inputsB = await uploadCase(stack, caseB, versions);
    intakeB = await startRun(stack, { agent_name: 'INTAKE_AGENT', case_id: caseB, input_artifacts: [inputsB.form], parameters: {} });
    expect(intakeB.outcome).toBe('success');
    treeA = await runTree(stack, workflow.run_id);
    const runsOf = async (userId: string) => (await stack.log.replay<string[]>((ids, e) => {
      if (e.type === 'RunCreated' && (e.data as { user_id?: string; run_kind: string }).user_id === userId && (e.data as { run_kind: string }).run_kind === 'agent') ids.push(e.metadata.stream_id);
      return ids;
    }, [], { filter: 'rl.log.run.>' })).state;
    aliceRuns = await runsOf(aliceConv.user_id);
    bobRun = (await runsOf(bobConv.user_id))[0];
    // The audit ledger has indexed every decision before the scans below.
    await stack.waitFor(async () => (await auditRecords(aliceConv.conversation_id)).length >= aliceRuns.length, 30_000);
  }, 600_000);
  afterAll(async () => {
    await operatorConsole?.stop();
    await stack?.stop();
  });

  it('Issue 9 erasure: no stream holds a user\'s or a case\'s plaintext outside the stores meant for it (log, audit chain, read models, keys)', async () => {
    expect(aliceRuns.length).toBe(4);
    expect(await plaintextIn([...ALICE_TEXT, 'ficus', ...CASE_TEXT])).toEqual([]);
    // ... while every reader sees plaintext as long as the key exists.
    const first = await runGet(aliceRuns[0]);
    expect(first.run.parameters.message).toBe(`add task ${alice.tasks[0]}`);
    expect(JSON.stringify(first.result)).toContain('zebrafruit');
    expect((await auditRecords(aliceConv.conversation_id)).map((r) => r.input_message)).toContain(`add task ${alice.tasks[1]}`);
    const interview = treeA.find((r) => r.created.agent_name === 'INTERVIEW_AGENT' && r.created.run_kind === 'agent')!;
    expect(JSON.stringify((await runGet(interview.run_id)).events)).toContain('Tom Baker');
    // The operator console (rl.runs.get, as runs show) shows events opened too.
    expect(await consoleRun(aliceRuns[0])).toContain('zebrafruit');
  });

  it('Issue 9 erasure: erasing a user — the log and the audit chain verify, the user\'s text reads as erased everywhere, another user is intact, new requests are refused (DATA.ERASED)', async () => {
    const erased = await cli('admin', 'erase', '--user', aliceConv.user_id);
    expect(erased.stderr).toBe('');
    expect(erased.code).toBe(0);
    expect(erased.stdout).toMatch(/^erased user u-alice-\S+: data key destroyed; sealed data now reads as erased; 2 stored document\(s\) and 0 artifact\(s\) removed\n$/);
    // Every service dropped its cached key (each follows the key bucket by direct gets): rl.runs.get reads the marker.
    const first = await stack.waitFor(async () => {
      const r = await runGet(aliceRuns[0]);
      return r.run.parameters.message === ERASED_TEXT ? r : undefined;
    }, 15_000);
    expect(first.status).toBe('completed');
    expect(JSON.stringify(first)).not.toMatch(/zebrafruit|quimby|biopsy/);
    const requested = first.events.find((e) => e.type === 'ToolCallRequested')!;
    expect(requested.data.parameters).toEqual(ERASED_VALUE);
    // The audit query: the records stay (ids, codes, times), their free text reads as erased (once the audit ledger,
    // which follows the key bucket on its own, has read the destruction too: README "Erasure").
    const records = await stack.waitFor(async () => {
      const r = await auditRecords(aliceConv.conversation_id);
      return r.every((x) => x.input_message === ERASED_TEXT) ? r : undefined;
    }, 15_000);
    expect(records).toHaveLength(aliceRuns.length);
    expect(records.every((r) => r.input_message === ERASED_TEXT && r.classified_intent)).toBe(true);
    expect(await consoleRun(aliceRuns[0])).not.toMatch(/zebrafruit|quimby|biopsy/);
    // The conversation history, as the assistant folds it from the log.
    // The test's own reader follows the key bucket like a service (within about half a second of the erase).
    const conversation = aggregateRef('conversation', deterministicUuid('conversation', aliceConv.user_id, aliceConv.conversation_id));
    const history = await stack.waitFor(async () => {
      const events = await stack.log.read(conversation);
      return events.every((e) => (e.data as { user_message: string }).user_message === ERASED_TEXT) ? events : undefined;
    }, 15_000);
    expect(history.length).toBe(aliceRuns.length);
    // The chain hashes what the log holds (ciphertext): it verifies after the erasure.
    const verify = await cli('operator', 'audit', 'verify');
    expect(verify.stdout).toMatch(/^audit chain OK/);
    expect(verify.code).toBe(0);
    // Nothing of Alice's text is left anywhere, the task store included.
    expect(await plaintextIn(ALICE_TEXT, { everywhere: true })).toEqual([]);
    // Bob is untouched.
    expect(await bobConv.list()).toEqual([bobTask]);
    expect((await runGet(bobRun)).run.parameters.message).toBe(`add task ${bobTask}`);
    // A new request of Alice's is refused with its code: nothing more is stored for an erased user.
    const again = await send<{ code: string }>(stack, { user_id: aliceConv.user_id, conversation_id: aliceConv.conversation_id, message: 'add task something new' });
    expect(again).toMatchObject({ ok: false, body: { code: 'DATA.ERASED' } });
    expect(await plaintextIn(['something new'], { everywhere: true })).toEqual([]);
  });

  it('Issue 9 erasure: erasing a case — verification holds, the case\'s events, documents and artifacts are gone or read as erased, another case is intact, the case takes no new run', async () => {
    const erased = await cli('admin', 'erase', '--case', caseA);
    expect(erased.code).toBe(0);
    expect(erased.stdout).toMatch(/^erased case case-a-\S+: .* [1-9]\d* stored document\(s\) and [1-9]\d* artifact\(s\) removed\n$/);
    const interview = treeA.find((r) => r.created.agent_name === 'INTERVIEW_AGENT' && r.created.run_kind === 'agent')!;
    // A read that overlaps the moment decision learns of the erasure (its key watch) can open some fields before it
    // and some after: waited for until a whole read comes after it.
    const run = await stack.waitFor(async () => {
      const r = await runGet(interview.run_id);
      const erasedStep = r.events.some((e) => e.type === 'StepCompleted' && JSON.stringify(e.data.output) === JSON.stringify(ERASED_VALUE));
      return erasedStep && !/Tom Baker|overtime|Dana/.test(JSON.stringify(r)) ? r : undefined;
    }, 15_000);
    expect(run.status).toBe('completed');
    expect(run.events.filter((e) => e.type === 'StepCompleted').length).toBeGreaterThan(1);
    const verify = await cli('operator', 'audit', 'verify');
    expect(verify.code).toBe(0);
    // Case B's run still reads in full, and its documents and artifacts stay.
    const b = await runGet(intakeB.run_id);
    expect(b.events.filter((e) => e.type === 'StepCompleted').every((e) => JSON.stringify(e.data.output) !== JSON.stringify(ERASED_VALUE))).toBe(true);
    const objects = await (await new Objm(stack.nc).open('rl_artifacts')).list();
    const cases = objects.map((o) => (JSON.parse(o.metadata?.artifact_ref ?? '{}') as { case_id?: string }).case_id);
    expect(cases).not.toContain(caseA);
    expect(cases).toContain(caseB);
    // A new run of the erased case is refused with its code.
    const again = await stack.request<{ code?: string; error?: { error_code: string } }>(START, { agent_name: 'INTAKE_AGENT', case_id: caseA, input_artifacts: [], parameters: { note: 'more' } }, 60_000);
    expect(JSON.stringify(again.body)).toContain('DATA.ERASED');
  });

  it('Issue 9 erasure: replay after erasure gives what live processing gives (the erased marker folds the same everywhere)', async () => {
    const r = await cli('admin', 'replay', '--check-runs', '60');
    expect({ code: r.code, tail: r.stdout.split('\n').slice(-2).join('\n') }).toEqual({ code: 0, tail: 'no differences\n' });
  });

  it('Issue 23 erasure: a failed run\'s error text (RunFailed error.message, which can quote the user) is sealed at rest, read opened by rl.runs.get and rl.runs.list, and reads as erased once its user is erased', async () => {
    const carol = `u-carol-${tag}`;
    const CAROL_TEXT = `pick up the lupine seeds ${tag}`;
    const runId = randomUUID();
    const run = { run_id: runId, root_run_id: runId, user_id: carol };
    // A sub-agent's model error that quotes the user's message, as decision records a run that failed on it.
    await new RunRepository(stack.log).append({ ...run, run_kind: 'agent' }, [
      { type: 'RunCreated', data: { ...run, run_kind: 'agent', agent_name: 'TASK_ASSISTANT', contract_version: 'v1', policy_versions: { lanes: 'seed', roles: 'seed' }, input_artifacts: [], parameters: {}, request_hash_sha256: 'a'.repeat(64) } },
      { type: 'AuthzDecided', data: { decision: 'allow', policy_versions: { lanes: 'seed', roles: 'seed' } } },
      { type: 'RunStarted', data: {} },
      { type: 'RunFailed', data: { error: { error_code: 'AGENT.FAILED', message: `model error: cannot plan "${CAROL_TEXT}"`, retryable: false } } },
    ], { expectedVersion: 0, commandId: `carol-${runId}` });
    const listedMessage = async () => {
      const r = await stack.request<{ runs: Array<{ run_id: string; error_message: unknown }> }>('rl.runs.list', { text: runId, include_children: true }, 30_000);
      return r.ok ? r.body.runs.find((x) => x.run_id === runId)?.error_message : undefined;
    };
    expect(await stack.waitFor(async () => listedMessage(), 60_000)).toBe(`model error: cannot plan "${CAROL_TEXT}"`);
    expect((await runGet(runId)).events.find((e) => e.type === 'RunFailed')?.data).toEqual({ error: { error_code: 'AGENT.FAILED', message: `model error: cannot plan "${CAROL_TEXT}"`, retryable: false } });
    // At rest, in the log and in the runs index, only ciphertext.
    expect(await plaintextIn([CAROL_TEXT])).toEqual([]);
    expect((await cli('admin', 'erase', '--user', carol)).code).toBe(0);
    const failed = await stack.waitFor(async () => {
      const e = (await runGet(runId)).events.find((x) => x.type === 'RunFailed');
      return (e?.data.error as { message?: string } | undefined)?.message === ERASED_TEXT ? e : undefined;
    }, 15_000);
    expect(failed.data).toEqual({ error: { error_code: 'AGENT.FAILED', message: ERASED_TEXT, retryable: false } });
    expect(await stack.waitFor(async () => ((await listedMessage()) === ERASED_TEXT ? ERASED_TEXT : undefined), 15_000)).toBe(ERASED_TEXT);
    expect(await plaintextIn([CAROL_TEXT], { everywhere: true })).toEqual([]);
  });

  it('Issue 9 erasure: only services read data keys; callers and operators read nothing, and only the admin may delete them', async () => {
    const REFUSED = /Permissions Violation/;
    for (const identity of ['caller', 'operator']) {
      const nc = await stack.connectAs(identity);
      try {
        await expect(nc.request(`$JS.API.DIRECT.GET.KV_${DATA_KEYS_BUCKET}.$KV.${DATA_KEYS_BUCKET}.user.x`, encodeJson({}), { timeout: 10_000 })).rejects.toThrow(REFUSED);
        await expect(nc.request(`$KV.${DATA_KEYS_BUCKET}.user.x`, encodeJson('forged'), { timeout: 10_000 })).rejects.toThrow(REFUSED);
      } finally {
        await nc.close();
      }
    }
    for (const identity of ['decision', 'audit-ledger']) {
      const nc = await stack.connectAs(identity);
      try {
        await expect(nc.request(`$JS.API.STREAM.PURGE.KV_${DATA_KEYS_BUCKET}`, encodeJson({}), { timeout: 10_000 })).rejects.toThrow(REFUSED);
        await expect(nc.request(`$JS.API.STREAM.MSG.DELETE.KV_${DATA_KEYS_BUCKET}`, encodeJson({ seq: 1 }), { timeout: 10_000 })).rejects.toThrow(REFUSED);
      } finally {
        await nc.close();
      }
    }
    // The audit ledger opens keys but never writes one.
    const ledger = await stack.connectAs('audit-ledger');
    try {
      await expect(ledger.request(`$KV.${DATA_KEYS_BUCKET}.user.x`, encodeJson('forged'), { timeout: 10_000 })).rejects.toThrow(REFUSED);
    } finally {
      await ledger.close();
    }
  });
});
