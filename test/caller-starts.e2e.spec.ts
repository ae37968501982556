/**
 * Issue 26, as the `caller` identity an integrator holds: runs and sessions start only on a caller's own door
 * (rl.caller.<identity>.runs.start | sessions.start), which NATS lets no other identity publish on; they are recorded
 * for that caller, in the cases its role covers (policy/callers.yaml: `case-*`); refusals name what is wrong; an erased
 * case takes no new ingest; `runledger erase` refuses in words. Every refusal starts nothing.
 */
import { createHash, randomUUID } from 'node:crypto';
import { Kvm } from '@nats-io/kv';
import { Objm } from '@nats-io/obj';
import type { NatsConnection } from '@nats-io/transport-node';
import type { AgentRunResponse, ArtifactRef } from '@runledger/contracts';
import { decodeReply, encodeJson } from '@runledger/messaging';
import { Answer, callerDoor, errorMessageOf, errorOf, OWN_SESSION_START, OWN_START, runIdOf } from './support/caller-door';
import { runCli } from './support/cli';
import { approvedTicket, childrenOf, putTicket, runTree, START } from './support/governed-runs';
import { SESSION_START } from './support/sessions';
import { TestStack } from './support/stack';

jest.setTimeout(300_000);

/** The harness's `test-admin` (START, SESSION_START) is a caller of every case: the victim below. */
const REFUSED = /Permissions Violation/;

describe('Issue 26 caller starts: attributed to a caller, in its cases, refused in words', () => {
  let stack: TestStack;
  let caller: NatsConnection;
  const tag = randomUUID().slice(0, 8);
  const cli = (identity: string, ...args: string[]) => runCli(stack.url, args, stack.cliEnv(identity));

  beforeAll(async () => {
    stack = await TestStack.shared();
    caller = await stack.connectAs('caller');
  });
  afterAll(async () => {
    await caller?.close();
    await stack?.stop();
  });

  const { ask, ingestJson, recorded } = callerDoor(() => ({ stack, caller }));
  /** As the caller, naming `reply` (any subject): the harness's admin may subscribe anywhere, so it reads the answer. */
  const askNaming = async (reply: string, subject: string, body: unknown, from: NatsConnection = caller): Promise<Answer> => {
    const sub = stack.nc.subscribe(reply, { max: 1 });
    await stack.nc.flush();
    from.publish(subject, encodeJson(body), { reply });
    for await (const m of sub) return decodeReply(m.data, m.headers);
    throw new Error(`no answer on ${reply}`);
  };
  /** A caller's GOVERNANCE_AGENT run in `caseId`: the desk's candidate, the approver's ticket (contract 001 §4.5). */
  const promote = async (caseId: string, runId: string, text: string) => {
    const candidate = await ingestJson(caseId, 'GOVERNANCE_AGENT', 'candidate_insights', { title: 'Wage complaints and dismissal', text });
    expect(candidate).toMatchObject({ ok: true, body: { kind: 'candidate_insights', case_id: caseId } });
    const ticket = await putTicket(stack, caseId, approvedTicket(caseId));
    return ask(OWN_START, { agent_name: 'GOVERNANCE_AGENT', case_id: caseId, run_id: runId, input_artifacts: [ticket, (candidate.ok && candidate.body) as ArtifactRef], parameters: {} }, 120_000);
  };

  it('Issue 26 a caller cannot start as another caller: another caller\'s door and the retired agents.run.start / agents.session.* are NATS permission violations, and nothing starts', async () => {
    // test-admin is a caller of every case: a run in acme-… on its door would be the caller's privilege escalation.
    for (const subject of [START, 'agents.run.start']) {
      const runId = randomUUID();
      await expect(ask(subject, { agent_name: 'INTAKE_AGENT', case_id: `acme-${tag}`, run_id: runId, input_artifacts: [], parameters: {} }, 10_000)).rejects.toThrow(REFUSED);
      expect({ subject, events: await recorded(runId) }).toEqual({ subject, events: [] });
    }
    for (const subject of [SESSION_START, 'agents.session.start']) {
      const runId = randomUUID();
      await expect(ask(subject, { agent: 'assistant', prompt: 'x', case_id: `acme-${tag}`, run_id: runId }, 10_000)).rejects.toThrow(REFUSED);
      expect({ subject, events: await recorded(runId) }).toEqual({ subject, events: [] });
    }
    await expect(ask('agents.session.get', { run_id: randomUUID() }, 10_000)).rejects.toThrow(REFUSED);
  });

  it('Issue 26 a start on the caller\'s own door whose reply names another caller\'s inbox is refused REQUEST.INVALID and starts nothing', async () => {
    const runId = randomUUID();
    const run = await askNaming(`_INBOX_test-admin.${randomUUID()}`, OWN_START, { agent_name: 'INTAKE_AGENT', case_id: `case-${tag}`, run_id: runId, input_artifacts: [], parameters: {} });
    expect(run).toMatchObject({ ok: false, error: { code: 'REQUEST.INVALID', retryable: false } });
    const sessionId = randomUUID();
    const session = await askNaming(`_INBOX_test-admin.${randomUUID()}`, OWN_SESSION_START, { agent: 'assistant', prompt: 'x', run_id: sessionId });
    expect(session).toMatchObject({ ok: false, error: { code: 'REQUEST.INVALID', retryable: false } });
    expect([await recorded(runId), await recorded(sessionId)]).toEqual([[], []]);
  });

  it('Probe finding (log forgery): a request whose reply names a log subject or a key of the data-key bucket is dropped unprocessed: nothing is stored there in the answering service\'s name', async () => {
    const forgedRun = `rl.log.run.decision.${randomUUID()}`;
    const plantedKey = `$KV.rl_data_keys.user.${Buffer.from(`victim-${tag}`).toString('base64url')}`;
    const taskRequest = { user_id: `victim-${tag}`, conversation_id: randomUUID(), message: 'add task forged reply' };
    for (const reply of [forgedRun, plantedKey]) {
      caller.publish('agents.task-assistant.process', encodeJson(taskRequest), { reply });
      caller.publish(OWN_START, encodeJson({ agent_name: 'INTAKE_AGENT', case_id: `case-${tag}`, run_id: randomUUID(), input_artifacts: [], parameters: {} }), { reply });
    }
    // Answered in order behind them on the same subscriptions: by then the forged ones were taken and dropped.
    expect((await ask('agents.task-assistant.process', { ...taskRequest, user_id: `other-${tag}` })).ok).toBe(true);
    expect(await stack.log.version(forgedRun)).toBe(0);
    const keys = await new Kvm(stack.nc).open('rl_data_keys');
    expect(await keys.get(`user.${Buffer.from(`victim-${tag}`).toString('base64url')}`)).toBeNull();
    // The victim is served as anyone is: no key planted for it.
    expect((await ask('agents.task-assistant.process', { ...taskRequest, conversation_id: randomUUID() })).ok).toBe(true);
  });

  it('Issue 26 an identity with no role in the caller grants (the admin, on its own door) starts nothing: REQUEST.UNATTRIBUTED', async () => {
    const admin = await stack.connectAs('admin');
    try {
      const runId = randomUUID();
      const run = await askNaming(`_INBOX_admin.${randomUUID()}`, 'rl.caller.admin.runs.start', { agent_name: 'INTAKE_AGENT', case_id: `case-${tag}`, run_id: runId, input_artifacts: [], parameters: {} }, admin);
      expect(run).toMatchObject({ ok: true, body: { outcome: 'deny', run_id: runId, error: { error_code: 'REQUEST.UNATTRIBUTED', retryable: false } } });
      const sessionId = randomUUID();
      const session = await askNaming(`_INBOX_admin.${randomUUID()}`, 'rl.caller.admin.sessions.start', { agent: 'assistant', prompt: 'x', run_id: sessionId }, admin);
      expect(session).toMatchObject({ ok: false, error: { code: 'REQUEST.UNATTRIBUTED', retryable: false } });
      expect([await recorded(runId), await recorded(sessionId)]).toEqual([[], []]);
    } finally {
      await admin.close();
    }
  });

  it('Issue 26 a caller\'s start on its own door is attributed to it and held to its cases: CASE.NOT_GRANTED and no run outside them; inside, the run is recorded for it', async () => {
    const refusedId = randomUUID();
    const refused = await ask(OWN_START, { agent_name: 'ORCHESTRATOR', case_id: 'acme-7', run_id: refusedId, input_artifacts: [], parameters: {} });
    expect(refused).toMatchObject({ ok: true, body: { outcome: 'deny', run_id: refusedId, error: { error_code: 'CASE.NOT_GRANTED' } } });
    expect(await recorded(refusedId)).toEqual([]);
    const runId = randomUUID();
    const granted = await ask(OWN_START, { agent_name: 'INTAKE_AGENT', case_id: `case-${tag}`, run_id: runId, input_artifacts: [], parameters: {} }, 120_000);
    expect(['REQUEST.UNATTRIBUTED', 'CASE.NOT_GRANTED']).not.toContain(errorOf(granted));
    const created = (await stack.runEvents(runId)).find((e) => e.type === 'RunCreated');
    expect(created?.data).toMatchObject({ case_id: `case-${tag}`, requested_by: 'caller' });
  });

  it('Issue 26 caller grants: an input ref relabelled with another kind is refused before any run starts (the store\'s reference decides what an input is: kind, media type, case, bytes)', async () => {
    const caseId = `case-relabel-${tag}`;
    // The intake desk supplies intake forms to INTAKE_AGENT (and GOVERNANCE_AGENT only the candidates it ingests as such).
    const form = await ingestJson(caseId, 'INTAKE_AGENT', 'client_intake_form', { title: 'Keep every wage slip', text: 'Collect the wage slips and the dismissal letter before the first meeting.' });
    expect(form).toMatchObject({ ok: true, body: { kind: 'client_intake_form', case_id: caseId } });
    const formRef = (form.ok && form.body) as ArtifactRef;
    const ticket = await putTicket(stack, caseId, approvedTicket(caseId));
    const start = async (inputs: unknown[]) => {
      const runId = randomUUID();
      const answer = await ask(OWN_START, { agent_name: 'GOVERNANCE_AGENT', case_id: caseId, run_id: runId, input_artifacts: inputs, parameters: {} }, 120_000);
      return { runId, answer };
    };

    // The form relabelled as a candidate for promotion: refused, nothing recorded, nothing promoted.
    const relabelled = await start([ticket, { ...formRef, kind: 'candidate_insights' }]);
    expect(relabelled.answer).toMatchObject({ ok: true, body: { outcome: 'failure', run_id: relabelled.runId, output_artifacts: [], error: { error_code: 'INVALID_INPUT', retryable: false } } });
    expect(errorMessageOf(relabelled.answer)).toBe(`Input artifact ${formRef.artifact_id} is not the artifact stored under that id: its kind differs from the store's reference.`);
    expect(await recorded(relabelled.runId)).toEqual([]);
    // Each identity field is the store's: media type and case alike; other bytes are a hash mismatch; an id nothing is stored under is not found.
    const mediaType = await start([{ ...formRef, media_type: 'text/plain' }]);
    expect(mediaType.answer).toMatchObject({ ok: true, body: { outcome: 'failure', error: { error_code: 'INVALID_INPUT', message: expect.stringContaining('its media_type differs') } } });
    // The same artifact stated as another case's: the case rule refuses it (recorded), and nothing tells what the
    // store holds (a stored reference of another case is answered as none, naming no field: review finding).
    const otherCase = await start([{ ...formRef, case_id: `case-other-${tag}` }]);
    expect(otherCase.answer).toMatchObject({ ok: true, body: { error: { error_code: 'CASE.CROSS_CASE_DENIED' } } });
    const { case_id: _stated, ...caseless } = formRef;
    const sharedPlane = await start([caseless]);
    expect(sharedPlane.answer).toMatchObject({ ok: true, body: { outcome: 'failure', error: { error_code: 'ARTIFACT.NOT_FOUND', message: `Input artifact ${formRef.artifact_id} is not in the artifact store.` } } });
    const otherBytes = await start([{ ...formRef, sha256: createHash('sha256').update('other bytes').digest('hex'), size_bytes: 11 }]);
    expect(otherBytes.answer).toMatchObject({ ok: true, body: { outcome: 'failure', error: { error_code: 'ARTIFACT.HASH_MISMATCH', message: expect.stringContaining('its sha256, size_bytes differ') } } });
    const missing = await start([{ ...formRef, artifact_id: `art-${'0'.repeat(64)}` }]);
    expect(missing.answer).toMatchObject({ ok: true, body: { outcome: 'failure', error: { error_code: 'ARTIFACT.NOT_FOUND' } } });
    for (const refused of [mediaType, sharedPlane, otherBytes, missing]) expect(await recorded(refused.runId)).toEqual([]);

    // The form as stored is taken, and is what it is: an intake form, no candidate (the run needs one and fails, recorded).
    const asStored = await start([ticket, formRef]);
    expect(asStored.answer).toMatchObject({ ok: true, body: { outcome: 'failure', error: { error_code: 'INVALID_INPUT', message: 'GOVERNANCE_AGENT needs a candidate_insights input artifact.' } } });
    expect(await recorded(asStored.runId)).toContain('RunFailed');
  });

  it('Contract 001 §4.5 from outside: the intake desk supplies GOVERNANCE_AGENT its candidate_insights and the approver its ticket; a caller\'s run promotes (no role supplied candidates before: every promotion failed)', async () => {
    const caseId = `case-promote-${tag}`;
    // The desk supplies candidates, never the approval: its ticket is refused at the door.
    expect(errorOf(await ingestJson(caseId, 'GOVERNANCE_AGENT', 'promotion_ticket', approvedTicket(caseId)))).toBe('ARTIFACT.KIND_DENIED');
    const runId = randomUUID();
    const answer = await promote(caseId, runId, 'When a dismissal closely follows a wage complaint, collect the timeline early and keep the written messages.');
    expect(answer).toMatchObject({ ok: true, body: { outcome: 'success', run_id: runId, error: null } });
    expect((answer.ok && (answer.body as AgentRunResponse).output_artifacts.length) || 0).toBeGreaterThan(0);
  });

  it('Probe finding 11: a run_id naming a run the caller did not start is refused in one sentence whatever its parent (the answer told a service\'s child run by its parent_run_id)', async () => {
    const caseId = `case-foreign-${tag}`;
    const parentId = randomUUID();
    expect(await promote(caseId, parentId, 'Collect the timeline of complaint and dismissal early.')).toMatchObject({ ok: true, body: { outcome: 'success' } });
    // The promotion service's child run: a run of the caller's tree, but not one the caller started.
    const [child] = childrenOf(await runTree(stack, parentId), parentId, 'promotion');
    const naming = (parent?: string) => ask(OWN_START, { agent_name: 'GOVERNANCE_AGENT', case_id: caseId, run_id: child.run_id, ...(parent ? { parent_run_id: parent } : {}), input_artifacts: [], parameters: {} });
    for (const answer of [await naming(), await naming(parentId), await naming(randomUUID())]) {
      expect(answer).toMatchObject({ ok: true, body: { outcome: 'failure', run_id: child.run_id, error: { error_code: 'INVALID_INPUT', message: 'run_id already names a run of a different request.' } } });
    }
  });

  it('Issue 26 a caller\'s sessions.start: a case its role does not cover is CASE.NOT_GRANTED, and another caller\'s run, a user\'s task run or no run as its parent are refused alike (REQUEST.INVALID); nothing starts', async () => {
    const own = randomUUID();
    expect(errorOf(await ask(OWN_SESSION_START, { agent: 'assistant', prompt: 'x', case_id: 'acme-9', run_id: own }))).toBe('CASE.NOT_GRANTED');
    expect(await recorded(own)).toEqual([]);
    // A run in acme-… started by the harness (a caller of every case): a child session of it inherits acme-….
    const parent = randomUUID();
    const started = await stack.request<AgentRunResponse>(START, { agent_name: 'INTAKE_AGENT', case_id: `acme-${tag}`, run_id: parent, input_artifacts: [], parameters: {} }, 120_000);
    expect(started.body.run_id).toBe(parent);
    // Probe finding: another caller's run is no parent of this caller's, whatever its case or state: refused as no run
    // at all, as a user's task run and an id naming nothing are (nothing learned of it, nothing grafted onto its tree).
    const task = await stack.request<{ run_id: string }>('agents.task-assistant.process', { user_id: `u-${tag}`, conversation_id: randomUUID(), message: 'add task graft target' }, 120_000);
    const refusals = [];
    for (const foreign of [parent, task.body.run_id, randomUUID()]) {
      const child = randomUUID();
      const answer = await ask(OWN_SESSION_START, { agent: 'assistant', prompt: 'x', parent_run_id: foreign, run_id: child });
      refusals.push(answer.ok ? answer : answer.error);
      expect(await recorded(child)).toEqual([]);
    }
    expect(refusals).toEqual(Array(3).fill(expect.objectContaining({ code: 'REQUEST.INVALID', message: 'parent_run_id names no run of this caller.' })));
    // Review finding: a caller door's user (rl.caller.<identity>.…) is no session's user, on any door (its data key and
    // erasure are that door's alone).
    const asDoorUser = randomUUID();
    const doorUser = await ask(OWN_SESSION_START, { agent: 'assistant', prompt: 'x', user_id: 'rl.caller.approver.alice', run_id: asDoorUser });
    expect(doorUser.ok ? doorUser : doorUser.error).toMatchObject({ code: 'REQUEST.INVALID', message: expect.stringContaining('user_id names a user of a caller door') });
    expect(await recorded(asDoorUser)).toEqual([]);
    // runs.start alike: another caller's finished run in another case answers as an id naming nothing (not
    // RUN.PARENT_TERMINAL, not CASE.CROSS_CASE_DENIED).
    const startUnder = async (parentRunId: string) => {
      const body = (await ask(OWN_START, { agent_name: 'INTAKE_AGENT', case_id: `case-${tag}`, parent_run_id: parentRunId, input_artifacts: [], parameters: {} }, 120_000) as { body: AgentRunResponse }).body;
      return { outcome: body.outcome, error: body.error };
    };
    expect(await startUnder(parent)).toEqual(await startUnder(randomUUID()));
  });

  it('Issue 26 a caller\'s own finished run parents no new session (RUN.PARENT_TERMINAL); nothing starts', async () => {
    const parent = randomUUID();
    await ask(OWN_START, { agent_name: 'INTAKE_AGENT', case_id: `case-${tag}`, run_id: parent, input_artifacts: [], parameters: {} }, 120_000);
    expect(await ask('rl.caller.caller.runs.get', { run_id: parent })).toMatchObject({ ok: true, body: { run_id: parent, status: expect.stringMatching(/completed|failed/) } });
    const child = randomUUID();
    expect(await ask(OWN_SESSION_START, { agent: 'assistant', prompt: 'x', parent_run_id: parent, run_id: child })).toMatchObject({ ok: false, error: { code: 'RUN.PARENT_TERMINAL' } });
    expect(await recorded(child)).toEqual([]);
  });

  it('Probe finding (caller crashed decision): a caller\'s waiting follow requests are bounded (RL_CALLER_WAITS, 64): the next is REQUEST.RATE_LIMITED, retryable, at once; another caller still follows; a slot is free again once a wait is answered', async () => {
    const follow = (nc: NatsConnection, waitMs: number, door = 'caller') => nc.request(`rl.caller.${door}.runs.events`, encodeJson({ run_id: randomUUID(), after: 0, wait_ms: waitMs }), { timeout: 60_000 }).then((m) => decodeReply(m.data, m.headers));
    // 70 at once, each waiting 5 s for a run that never comes: 64 wait, the other 6 are refused at once; the harness's
    // caller (test-admin, on its own door) asked meanwhile is not refused.
    const [answers, other] = await Promise.all([Promise.all(Array.from({ length: 70 }, () => follow(caller, 5_000))), follow(stack.nc, 3_000, 'test-admin')]);
    expect(other).toMatchObject({ ok: false, error: { code: 'RUN.NOT_FOUND' } });
    const codes = answers.map((a) => (a.ok ? 'ok' : a.error.code));
    expect(codes.filter((c) => c === 'REQUEST.RATE_LIMITED')).toHaveLength(6);
    expect(codes.filter((c) => c === 'RUN.NOT_FOUND')).toHaveLength(64);
    expect(answers.find((a) => !a.ok && a.error.code === 'REQUEST.RATE_LIMITED')).toMatchObject({ error: { retryable: true } });
    // Answered: the caller's slots are free again.
    expect(await follow(caller, 10)).toMatchObject({ ok: false, error: { code: 'RUN.NOT_FOUND' } });
  });

  it('Probe finding: on the caller\'s doors a key named like an Object.prototype member is an unknown field, refused as foo is (REQUEST.INVALID), and nothing runs', async () => {
    const runId = randomUUID();
    const doors: Array<[string, Record<string, unknown>]> = [
      ['rl.caller.caller.runs.get', { run_id: runId }], ['rl.caller.caller.runs.events', { run_id: runId, after: 0, wait_ms: 0 }],
      ['rl.caller.caller.sessions.get', { run_id: runId }], ['rl.caller.caller.artifacts.get', { run_id: runId, artifact_id: runId }],
    ];
    for (const [subject, body] of doors) {
      expect({ subject, r: await ask(subject, { ...body, foo: 1 }) }).toMatchObject({ subject, r: { ok: false, error: { code: 'REQUEST.INVALID', details: ['property foo should not exist'] } } });
      expect({ subject, r: await ask(subject, { ...body, toString: 1, hasOwnProperty: 1 }) }).toMatchObject({
        subject, r: { ok: false, error: { code: 'REQUEST.INVALID', retryable: false, details: ['property toString should not exist', 'property hasOwnProperty should not exist'] } },
      });
    }
    const started = await ask(OWN_START, { agent_name: 'INTAKE_AGENT', case_id: `case-${tag}`, run_id: runId, input_artifacts: [], parameters: { toString: 'x' } });
    expect(started).toMatchObject({ ok: true, body: { outcome: 'failure', run_id: runId, error: { error_code: 'INVALID_INPUT', message: expect.stringContaining('property parameters.toString should not exist') } } });
    expect(await recorded(runId)).toEqual([]);
  });

  it('Issue 9 erasure: an erased case takes no new ingest (DATA.ERASED), and nothing of it reaches the artifact store', async () => {
    const erasedCase = `case-erased-${tag}`;
    const ingest = (text: string) => ingestJson(erasedCase, 'INTAKE_AGENT', 'client_intake_form', { name: text });
    expect((await ingest('before')).ok).toBe(true);
    expect((await cli('admin', 'erase', '--case', erasedCase)).code).toBe(0);
    expect(await ingest(`after the erasure ${tag}`)).toMatchObject({ ok: false, error: { code: 'DATA.ERASED', retryable: false } });
    const objects = await (await new Objm(stack.nc).open('rl_artifacts')).list();
    expect(objects.filter((o) => (JSON.parse(o.metadata?.artifact_ref ?? '{}') as { case_id?: string }).case_id === erasedCase)).toEqual([]);
  });

  it('Issue 9 erasure §2.2: a run started in an erased case is refused like the other refusals, a §2.2 body (outcome failure, DATA.ERASED, not retryable), not a wire error, and nothing is recorded', async () => {
    const erasedCase = `case-erased-run-${tag}`;
    expect((await cli('admin', 'erase', '--case', erasedCase)).code).toBe(0);
    const runId = randomUUID();
    const refused = await ask(OWN_START, { agent_name: 'INTAKE_AGENT', case_id: erasedCase, run_id: runId, input_artifacts: [], parameters: {} }, 120_000);
    expect(refused).toMatchObject({ ok: true, body: { outcome: 'failure', agent_name: 'INTAKE_AGENT', run_id: runId, output_artifacts: [], error: { error_code: 'DATA.ERASED', retryable: false } } });
    expect(await recorded(runId)).toEqual([]);
  });

  it('RFC 9562 run ids: a run_id in upper case names the run its lower-case id names (runs.get, runs.events, the same start again), and the same start in either case is one run', async () => {
    const runId = randomUUID();
    const request = { agent_name: 'INTAKE_AGENT', case_id: `case-${tag}`, run_id: runId.toUpperCase(), input_artifacts: [], parameters: {} };
    const first = await ask(OWN_START, request, 120_000);
    expect(runIdOf(first)).toBe(runId);
    for (const asked of [runId.toUpperCase(), runId]) {
      expect(await ask('rl.caller.caller.runs.get', { run_id: asked })).toMatchObject({ ok: true, body: { run_id: runId } });
      expect(await ask('rl.caller.caller.runs.events', { run_id: asked, after: 0, wait_ms: 0 })).toMatchObject({ ok: true, body: { events: expect.arrayContaining([expect.objectContaining({ type: 'RunCreated' })]) } });
    }
    // The same request again, its run_id in lower case: the one run, recorded once.
    expect(runIdOf(await ask(OWN_START, { ...request, run_id: runId }, 120_000))).toBe(runId);
    expect((await stack.runEvents(runId)).filter((e) => e.type === 'RunCreated')).toHaveLength(1);
    // A child naming it as parent in either case finds it (here: finished, so it parents nothing) under one derived id.
    const { run_id: _given, ...child } = request;
    const upper = await ask(OWN_START, { ...child, parent_run_id: runId.toUpperCase() }, 120_000);
    const lower = await ask(OWN_START, { ...child, parent_run_id: runId }, 120_000);
    expect([errorOf(upper), errorOf(lower)]).toEqual(['RUN.PARENT_TERMINAL', 'RUN.PARENT_TERMINAL']);
    expect(runIdOf(upper)).toBe(runIdOf(lower));
    // after past a safe integer is refused, not answered as 1e+300.
    expect(await ask('rl.caller.caller.runs.events', { run_id: runId, after: 1e300 })).toMatchObject({ ok: false, error: { code: 'REQUEST.INVALID', details: [`after must not be greater than ${Number.MAX_SAFE_INTEGER}`] } });
  });

  it('Issue 7 sessions.get answers sessions only: a governed run the caller started is RUN.NOT_FOUND there (rl.caller.<caller>.runs.get reads it), not a partial session', async () => {
    const runId = randomUUID();
    await ask(OWN_START, { agent_name: 'INTAKE_AGENT', case_id: `case-${tag}`, run_id: runId, input_artifacts: [], parameters: {} }, 120_000);
    expect((await stack.runEvents(runId)).find((e) => e.type === 'RunCreated')?.data).toMatchObject({ requested_by: 'caller' });
    expect(await ask('rl.caller.caller.runs.get', { run_id: runId })).toMatchObject({ ok: true, body: { run_id: runId } });
    expect(await ask('rl.caller.caller.sessions.get', { run_id: runId })).toMatchObject({ ok: false, error: { code: 'RUN.NOT_FOUND' } });
  });

  it('Issue 9 runledger erase refuses in words: an identity that may not erase is told so, an id longer than the wire allows erases nothing, an unknown id says what was done', async () => {
    for (const identity of ['operator', 'caller']) {
      const r = await cli(identity, 'erase', '--user', `u-${tag}`);
      expect({ identity, code: r.code, stdout: r.stdout }).toEqual({ identity, code: 3, stdout: '' });
      expect(r.stderr).toMatch(/^refused: this identity may not erase; erasure destroys key material, the bootstrap admin's act/);
      expect(r.stderr).not.toMatch(/event log could not be read|Permissions Violation/);
    }
    // 512: the longest user the log can hold (a door's keyed user rl.caller.<identity>.<user_id>).
    const long = await cli('admin', 'erase', '--user', 'u'.repeat(600));
    expect({ code: long.code, stdout: long.stdout }).toEqual({ code: 2, stdout: '' });
    expect(long.stderr).toContain('a user id is at most 512 characters (no request carries a longer one); this one has 600: nothing was erased');
    expect((await cli('admin', 'erase', '--case', 'c'.repeat(129))).code).toBe(2);
    const fresh = `u-never-${tag}`;
    const first = await cli('admin', 'erase', '--user', fresh);
    expect({ code: first.code, stdout: first.stdout }).toEqual({ code: 0, stdout: `erased user ${fresh}: it had no data key (nothing was ever sealed for it); erased ahead: any data for it is refused from now on; 0 stored document(s) and 0 artifact(s) removed\n` });
    const again = await cli('admin', 'erase', '--user', fresh);
    expect(again.stdout).toBe(`erased user ${fresh}: it was already erased; 0 stored document(s) and 0 artifact(s) removed\n`);
  });
});
