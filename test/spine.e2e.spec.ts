import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { decodeMessage, LOG_STREAM } from '@runledger/event-log';
import { TestStack } from './support/stack';

jest.setTimeout(120_000);

describe('Spine: an agent request end to end over NATS', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await TestStack.start();
  });
  afterAll(async () => stack?.stop());

  it('Issue 2 done-when: a request flows intent-classification → decision → tool-gateway → db-write → audit-ledger, every step in the log', async () => {
    const conversation_id = randomUUID();
    const reply = await stack.request<{ run_id: string; response_text: string }>('agents.task-assistant.process', { user_id: 'u-spine', conversation_id, message: 'add task water the plants' });
    expect(reply.ok).toBe(true);
    expect(reply.body.response_text).toBe("I've added 'water the plants' to your tasks.");

    const runEvents = await stack.runEvents(reply.body.run_id);
    expect(runEvents.map((e) => e.type)).toEqual([
      'RunCreated', 'AuthzDecided', 'RunStarted', 'StepCompleted', 'StepCompleted', 'ToolCallRequested', 'ToolCallRecorded', 'DecisionRecorded', 'RunCompleted',
    ]);
    const recorded = runEvents.find((e) => e.type === 'ToolCallRecorded')!.data as { child_run_id: string };
    const toolRun = await stack.runEvents(recorded.child_run_id);
    expect(toolRun.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'EffectClaimed', 'ToolCallAudited', 'RunCompleted']);
    expect(toolRun[0].metadata.parent_run_id).toBe(reply.body.run_id);
    const { state: dbRuns } = await stack.log.replay<string[]>((acc, e) => (e.type === 'RunCreated' && (e.data as { run_kind: string; parent_run_id?: string }).run_kind === 'db_write' && (e.data as { parent_run_id?: string }).parent_run_id === recorded.child_run_id ? [...acc, e.metadata.stream_id] : acc), []);
    expect(dbRuns).toHaveLength(1);
    expect((await stack.runEvents(dbRuns[0])).map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'DbWriteAudited', 'RunCompleted']);

    const audit = await stack.waitFor(async () => {
      const r = await stack.request<{ records: Array<{ run_id: string; response_preview: string }> }>('rl.audit.query', { conversation_id });
      return r.body.records?.length ? r.body.records : undefined;
    });
    expect(audit[0]).toMatchObject({ run_id: reply.body.run_id, classified_intent: 'CREATE_TASK', decision_type: 'INVOKE_TOOL', response_preview: "I've added 'water the plants' to your tasks." });
  });

  it('Agent-request API: a caller can follow a run live by subscribing to its events', async () => {
    const seen: Array<{ subject: string; type: string }> = [];
    const sub = stack.nc.subscribe('rl.log.run.>', { callback: (_err, m) => void seen.push(...decodeMessage(m.data).map((e) => ({ subject: m.subject, type: e.type }))) });
    const reply = await stack.request<{ run_id: string }>('agents.task-assistant.process', { user_id: 'u-follow', conversation_id: randomUUID(), message: 'show tasks' });
    await stack.waitFor(async () => seen.some((e) => e.subject === `rl.log.run.decision.${reply.body.run_id}` && e.type === 'RunCompleted'));
    sub.unsubscribe();
    expect(seen.filter((e) => e.subject === `rl.log.run.decision.${reply.body.run_id}`).map((e) => e.type)).toEqual((await stack.runEvents(reply.body.run_id)).map((e) => e.type));
  });

  it('Governed choke points decide on what the calling run pinned: claims that differ from it are denied and audited', async () => {
    const conversation_id = randomUUID();
    const alice = await stack.request<{ run_id: string }>('agents.task-assistant.process', { user_id: 'u-alice', conversation_id, message: 'add task alice only' });
    const pinned = (await stack.runEvents(alice.body.run_id))[0].data as { policy_versions: { lanes: string; roles: string } };
    const invoke = (call_id: string, governance: Record<string, unknown>) => stack.request<{ status: string; child_run_id: string; error?: { error_code: string } }>('rl.tool.invoke', {
      call_id, tool_name: 'list_tasks', parameters: { user_id: 'u-mallory' },
      governance: { parent_run_id: alice.body.run_id, root_run_id: alice.body.run_id, agent_name: 'TASK_ASSISTANT', lane: 'TASKS', user_id: 'u-mallory', policy_versions: pinned.policy_versions, ...governance },
    });
    // Mallory claims to act for Alice's run under her own user id: denied, and the denial is in the log.
    const claimed = await invoke('mallory-1', {});
    expect(claimed.body).toMatchObject({ status: 'denied', error: { error_code: 'RUN.CLAIM_MISMATCH' } });
    expect((await stack.runEvents(claimed.body.child_run_id)).map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunDenied']);
    // A run that does not exist cannot call a tool either.
    const ghost = await invoke('ghost-1', { parent_run_id: randomUUID(), root_run_id: randomUUID() });
    expect(ghost.body).toMatchObject({ status: 'denied', error: { error_code: 'RUN.UNKNOWN_CALLER' } });
  });

  it('Immutability: deleting or purging the log is refused by the server', async () => {
    const jsm = await jetstreamManager(stack.nc);
    await expect(jsm.streams.purge(LOG_STREAM)).rejects.toThrow(/purge/i);
    await expect(jsm.streams.deleteMessage(LOG_STREAM, 1)).rejects.toThrow(/delete/i);
    expect((await jsm.streams.info(LOG_STREAM)).state.messages).toBeGreaterThan(0);
  });

  it('Health: every service answers on NATS and its HTTP readiness reflects the NATS connection', async () => {
    for (const service of ['intent-classification', 'decision', 'tool-gateway', 'db-write', 'promotion', 'export', 'audit-ledger']) {
      const r = await stack.request<{ service: string; status: string }>(`rl.health.${service}`, {});
      expect(r.body).toMatchObject({ service, status: 'ok' });
      const http = await fetch(`http://127.0.0.1:${stack.httpPorts.get(service)}/health/ready`);
      expect(http.status).toBe(200);
    }
  });
});
