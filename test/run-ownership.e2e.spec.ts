import { createHash, randomUUID } from 'node:crypto';
import { NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { EventLog, LOG_STREAM, type StoredEvent } from '@runledger/event-log';
import { decodeReply, encodeJson } from '@runledger/messaging';
import { runSubject } from '@runledger/runs';
import { runCli } from './support/cli';
import { TestStack } from './support/stack';

jest.setTimeout(240_000);

/**
 * Issue 23, runs appendable only by their owner, enforced by the bus: a run's subject names its owner
 * (rl.log.run.<owner>.<run_id>) and each service may publish only under its own name; readers and the audit check
 * every event's producer against the subject and every RunCreated against the owner's rights.
 */
describe('Issue 23 runs appendable only by their owner', () => {
  let stack: TestStack;
  const conns = new Map<string, NatsConnection>();
  const as = async (identity: string): Promise<NatsConnection> => {
    let nc = conns.get(identity);
    if (!nc) conns.set(identity, (nc = await stack.connectAs(identity)));
    return nc;
  };
  const REFUSED = /Permissions Violation/;
  /** The log as `identity` appends to it (its own credentials, its name as producer). */
  const logAs = async (identity: string): Promise<EventLog> => {
    const nc = await as(identity);
    return new EventLog(jetstream(nc), await jetstreamManager(nc), { producer: identity, clock: { now: () => new Date() } });
  };
  const rawAppendAs = async (identity: string, subject: string): Promise<void> => {
    const body = { event: { type: 'RunCompleted', data: { output_artifacts: [] }, metadata: { event_id: randomUUID(), schema_version: 1, producer: identity, recorded_at: new Date().toISOString() } } };
    await jetstream(await as(identity)).publish(subject, encodeJson(body), { timeout: 10_000 });
  };
  const logHasSubject = async (subject: string): Promise<boolean> =>
    (await jetstreamManager(stack.nc)).streams.getMessage(LOG_STREAM, { last_by_subj: subject }).then((m) => Boolean(m), () => false);
  const runsGet = async (runId: string) => {
    const msg = await (await as('operator')).request('rl.runs.get', encodeJson({ run_id: runId }), { timeout: 20_000 });
    return decodeReply(msg.data, msg.headers);
  };
  /** The run ids rl.runs.list (the runs index, as the operator asks it) answers for a search on `runId`. */
  const listed = async (runId: string): Promise<string[]> => {
    const msg = await (await as('operator')).request('rl.runs.list', encodeJson({ text: runId, include_children: true }), { timeout: 30_000 });
    const r = decodeReply(msg.data, msg.headers);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    return (r.body as { runs: { run_id: string }[] }).runs.map((x) => x.run_id);
  };
  /** `runledger audit verify` as the operator, once its verdict names the run (the ledger chains asynchronously): a failure. */
  const verdictNaming = async (runId: string) => {
    const verdict = await stack.waitFor(async () => {
      const v = await runCli(stack.url, ['audit', 'verify'], stack.cliEnv('operator'));
      return v.stdout.includes(runId) ? v : null;
    }, 60_000);
    expect(verdict.code).not.toBe(0);
    return verdict;
  };

  let task: { runId: string; events: StoredEvent[] };
  let toolRunId: string;

  beforeAll(async () => {
    stack = await TestStack.start();
    const reply = await stack.request<{ run_id: string }>('agents.task-assistant.process', { user_id: 'u-owner', conversation_id: randomUUID(), message: 'add task buy milk' });
    if (!reply.ok) throw new Error(JSON.stringify(reply.body));
    task = { runId: reply.body.run_id, events: await stack.runEvents(reply.body.run_id) };
    toolRunId = (task.events.find((e) => e.type === 'ToolCallRecorded')!.data as { child_run_id: string }).child_run_id;
  }, 600_000);
  afterAll(async () => {
    for (const nc of conns.values()) await nc.close().catch(() => undefined);
    await stack?.stop();
  });

  /** An open run of `kind` as its owner writes it (created, authorised, started), under its owner's name. */
  const openRunOf = async (owner: 'tool-gateway' | 'export', kind: 'tool_gateway' | 'export'): Promise<string> => {
    const runId = randomUUID();
    const pin = (task.events[0].data as { policy_versions: { lanes: string; roles: string } }).policy_versions;
    const run = { run_id: runId, root_run_id: task.runId, parent_run_id: task.runId };
    await (await logAs(owner)).append({ kind: 'run', id: runId, subject: runSubject(owner, runId) }, [
      { type: 'RunCreated', data: { ...run, run_kind: kind, agent_name: 'task-assistant', contract_version: 'v1', policy_versions: pin, input_artifacts: [], parameters: {}, request_hash_sha256: createHash('sha256').update(runId).digest('hex') }, metadata: run },
      { type: 'AuthzDecided', data: { decision: 'allow', policy_versions: pin }, metadata: run },
      { type: 'RunStarted', data: {}, metadata: run },
    ], { commandId: `open-${runId}`, expectedVersion: 0 });
    return runId;
  };
  it('Issue 23 owner subjects: each run is stored under its owner\'s name (the task run under decision, its tool call under tool-gateway)', async () => {
    expect(new Set(task.events.map((e) => e.subject))).toEqual(new Set([runSubject('decision', task.runId)]));
    expect(new Set((await stack.runEvents(toolRunId)).map((e) => e.subject))).toEqual(new Set([runSubject('tool-gateway', toolRunId)]));
  });

  it('Issue 23 bypass: tool-gateway publishes on decision\'s run subject → refused at publish', async () => {
    const victim = randomUUID();
    await expect(rawAppendAs('tool-gateway', runSubject('decision', victim))).rejects.toThrow(REFUSED);
    expect(await logHasSubject(runSubject('decision', victim))).toBe(false);
  });

  it.each([
    ['tool-gateway', 'decision'],
    ['db-write', 'tool-gateway'],
    ['promotion', 'decision'],
    ['export', 'tool-gateway'],
  ])('Issue 23 bypass: cross-run append: %s appends to an existing run of %s → refused at publish, the run unchanged', async (identity, owner) => {
    const runId = owner === 'decision' ? task.runId : toolRunId;
    const before = (await stack.runEvents(runId)).length;
    await expect(rawAppendAs(identity, runSubject(owner as 'decision', runId))).rejects.toThrow(REFUSED);
    expect(await stack.runEvents(runId)).toHaveLength(before);
  });

  it('Issue 23 bypass: any service appends on the legacy run subject rl.log.run.<run_id> (read forever, appended to by nobody) → refused', async () => {
    for (const identity of ['decision', 'tool-gateway', 'db-write', 'promotion', 'export']) {
      await expect(rawAppendAs(identity, `rl.log.run.${task.runId}`)).rejects.toThrow(REFUSED);
    }
  });

  it('Issue 23 fabricated run: tool-gateway writes a complete TASK_ASSISTANT run for a victim user under its own name → rl.runs.get answers RUN.FORGED, audit verify and audit coverage name it forged', async () => {
    const created = task.events[0].data as { policy_versions: { lanes: string; roles: string } };
    const runId = randomUUID();
    const run = { run_id: runId, root_run_id: runId, user_id: 'u-victim' };
    const policy_versions = created.policy_versions;
    // The bus lets tool-gateway write under its own name: the run's subject then says who wrote it.
    await (await logAs('tool-gateway')).append({ kind: 'run', id: runId, subject: runSubject('tool-gateway', runId) }, [
      { type: 'RunCreated', data: { ...run, run_kind: 'agent', agent_name: 'TASK_ASSISTANT', contract_version: 'v1', policy_versions, input_artifacts: [], parameters: {}, request_hash_sha256: createHash('sha256').update(runId).digest('hex') }, metadata: run },
      { type: 'AuthzDecided', data: { decision: 'allow', action: 'agent.run.start', policy_versions }, metadata: run },
      { type: 'RunStarted', data: {}, metadata: run },
      { type: 'RunCompleted', data: { output_artifacts: [] }, metadata: run },
    ], { commandId: `forge-${runId}`, expectedVersion: 0 });
    const got = await runsGet(runId);
    expect(got.ok).toBe(false);
    expect(got.ok ? null : got.error.code).toBe('RUN.FORGED');
    const verdict = await verdictNaming(runId);
    expect(verdict.stdout).toMatch(/forged_run/);
    expect(verdict.stdout).toMatch(new RegExp(`run ${runId} is forged: a agent run under tool-gateway's name`));
    const coverage = await runCli(stack.url, ['audit', 'coverage'], stack.cliEnv('operator'));
    expect(coverage.stdout).toContain(`FORGED ${runId}: a agent run under tool-gateway's name`);
    expect(coverage.code).not.toBe(0);
    // The runs index leaves it out: a lawful run tool-gateway opens after it is listed, the forged one never is.
    const after = await openRunOf('tool-gateway', 'tool_gateway');
    await stack.waitFor(async () => (await listed(after)).includes(after), 60_000);
    expect(await listed(runId)).toEqual([]);
  });

  const cancelAsOperator = async (runId: string) => {
    const msg = await (await as('operator')).request('rl.runs.cancel', encodeJson({ run_id: runId, reason: 'drill', requested_by: 'operator' }), { timeout: 40_000 });
    return decodeReply(msg.data, msg.headers);
  };

  it.each(['tool-gateway', 'db-write', 'promotion', 'export'])('Issue 23 no control: decision\'s identity publishing on a %s run subject is refused by the bus, the run unchanged', async (owner) => {
    const runId = owner === 'tool-gateway' ? toolRunId : randomUUID();
    const before = owner === 'tool-gateway' ? (await stack.runEvents(runId)).length : 0;
    await expect(rawAppendAs('decision', runSubject(owner as 'tool-gateway', runId))).rejects.toThrow(REFUSED);
    if (owner === 'tool-gateway') expect(await stack.runEvents(runId)).toHaveLength(before);
    else expect(await logHasSubject(runSubject(owner as 'tool-gateway', runId))).toBe(false);
  });

  it('Issue 23 no control: rl.runs.control.<owner> may be sent by decision only, the operator and the other services are refused', async () => {
    for (const identity of ['operator', 'caller', 'tool-gateway', 'db-write', 'promotion', 'export', 'audit-ledger']) {
      await expect((await as(identity)).request('rl.runs.control.tool-gateway', encodeJson({ command_id: 'x', type: 'cancel_request', run_id: toolRunId }), { timeout: 10_000 })).rejects.toThrow(REFUSED);
    }
  });

  it('Issue 23 the owner ends its own runs on request: rl.runs.cancel of a tool-gateway run is recorded by tool-gateway on its own subject; asked again it is answered the same, nothing recorded twice', async () => {
    const runId = await openRunOf('tool-gateway', 'tool_gateway');
    const first = await cancelAsOperator(runId);
    expect(first).toMatchObject({ ok: true, body: { run_id: runId, outcome: 'requested', status: 'running' } });
    expect(await cancelAsOperator(runId)).toMatchObject({ ok: true, body: { outcome: 'requested' } });
    const asked = (await stack.runEvents(runId)).filter((e) => e.type === 'RunCancelRequested');
    expect(asked.map((e) => ({ subject: e.subject, producer: e.metadata.producer, data: e.data }))).toEqual([{ subject: runSubject('tool-gateway', runId), producer: 'tool-gateway', data: { reason: 'drill', requested_by: 'operator' } }]);
    expect((await runsGet(runId)).ok).toBe(true);
    // An ended run is answered as ended by its owner.
    expect(await cancelAsOperator(toolRunId)).toMatchObject({ ok: true, body: { run_id: toolRunId, outcome: 'already_ended', status: 'completed' } });
  });

  it('Issue 23 recorded history: an event decision wrote on tool-gateway\'s run before the bus refused it, other than a cancel request or resolution (a RunCompleted), makes the run forged, named by audit verify', async () => {
    await stack.waitFor(async () => (await listed(toolRunId)).includes(toolRunId), 60_000);
    const tool = (await stack.runEvents(toolRunId))[0];
    const run = { run_id: toolRunId, root_run_id: tool.metadata.root_run_id, parent_run_id: task.runId };
    // The bootstrap identity writes what decision could write before: the reader rule is what is tested.
    const before = new EventLog(jetstream(stack.nc), await jetstreamManager(stack.nc), { producer: 'decision', clock: { now: () => new Date() } });
    await before.append({ kind: 'run', id: toolRunId, subject: runSubject('tool-gateway', toolRunId) }, [
      { type: 'RunCompleted', data: { output_artifacts: [] }, metadata: run },
    ], { commandId: `mismatch-${toolRunId}` });
    const got = await runsGet(toolRunId);
    expect(got.ok ? null : got.error.code).toBe('RUN.FORGED');
    await expect(stack.runEvents(toolRunId)).rejects.toThrow(/RunCompleted produced by "decision" on tool-gateway's run/);
    const verdict = await verdictNaming(toolRunId);
    expect(verdict.stdout).toMatch(/forged_run/);
    // Listed before; the runs index leaves it out once forged (audit coverage names it instead).
    await stack.waitFor(async () => !(await listed(toolRunId)).includes(toolRunId), 60_000);
  });

  it('Issue 23 owner down: rl.runs.cancel of an export run while export is stopped answers DEPENDENCY.DOWN and records nothing; once export is back the cancel is recorded by export', async () => {
    const runId = await openRunOf('export', 'export');
    await stack.kill('export');
    try {
      const down = await cancelAsOperator(runId);
      expect(down.ok ? null : down.error.code).toBe('DEPENDENCY.DOWN');
      expect((await stack.runEvents(runId)).some((e) => e.type === 'RunCancelRequested')).toBe(false);
    } finally {
      await stack.startService('export');
    }
    const up = await stack.waitFor(async () => {
      const r = await cancelAsOperator(runId);
      return r.ok ? r : null;
    }, 60_000);
    expect(up.body).toMatchObject({ outcome: 'requested' });
    expect((await stack.runEvents(runId)).filter((e) => e.type === 'RunCancelRequested').map((e) => e.metadata.producer)).toEqual(['export']);
  });
});
