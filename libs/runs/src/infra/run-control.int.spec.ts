import { randomUUID } from 'node:crypto';
import { connect, NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { ensureLogStream, EventLog } from '@runledger/event-log';
import { startNatsServer, NatsServerHandle } from '@runledger/testing';
import type { RunEvent } from '../domain/run-events';
import type { RunOwner } from '../domain/run-ownership';
import { RunControl } from './run-control';
import { RunRepository } from './run-repository';

/**
 * Issue 23 review: a run's owner acts on rl.runs.control.<owner> for its own runs only, at no less than its own idle
 * floor, and takes as proof of a run's effect only children that name the run as their parent.
 */
describe('Issue 23 RunControl (the owner side of rl.runs.control.<owner>)', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  const repos = new Map<RunOwner, RunRepository>();
  const repo = (owner: RunOwner) => repos.get(owner)!;
  const T0 = new Date('2026-01-01T00:00:00Z');
  const pin = { lanes: 'l', roles: 'r' };
  const MIN = 60_000;
  /** The owner's clock a day after the runs were recorded: every run here is quiet past any threshold. */
  const control = () => new RunControl(repo('tool-gateway'), 'tool-gateway', { now: () => new Date(T0.getTime() + 86_400_000) }, { minIdleMs: MIN });

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect(server.connectOptions());
    const jsm = await jetstreamManager(nc);
    await ensureLogStream(jsm);
    for (const owner of ['decision', 'tool-gateway', 'db-write'] as const) repos.set(owner, new RunRepository(new EventLog(jetstream(nc), jsm, { producer: owner, clock: { now: () => T0 } })));
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  async function record(owner: RunOwner, run_id: string, kind: string, root: string, parent: string | undefined, more: RunEvent[]): Promise<void> {
    const created = { run_id, run_kind: kind as 'agent', agent_name: 'task-assistant', root_run_id: root, ...(parent ? { parent_run_id: parent } : {}), contract_version: 'v1', policy_versions: pin, input_artifacts: [], parameters: { tool_name: 'add_task', call_id: 'call-1' }, request_hash_sha256: 'h' };
    await repo(owner).append(created, [{ type: 'RunCreated', data: created }, { type: 'AuthzDecided', data: { decision: 'allow', policy_versions: pin } }, { type: 'RunStarted', data: {} }, ...more], { expectedVersion: 0, commandId: `seed:${run_id}` });
  }

  /** An ended agent run with one open tool_gateway child whose outcome nobody recorded. */
  async function openToolRun(): Promise<{ root: string; tg: string }> {
    const root = randomUUID();
    const tg = randomUUID();
    await record('tool-gateway', tg, 'tool_gateway', root, root, []);
    await record('decision', root, 'agent', root, undefined, [
      { type: 'ToolCallRequested', data: { call_id: 'call-1', sequence: 1, tool_name: 'add_task', parameters: {}, child_run_id: tg } },
      { type: 'RunFailed', data: { error: { error_code: 'TOOL.FAILED', message: 'cut short', retryable: false } } },
    ] as RunEvent[]);
    return { root, tg };
  }

  it('Issue 23 RunControl: another owner\'s run (decision\'s agent run) is RUN.NOT_FOUND to tool-gateway, for a cancel and a resolution alike', async () => {
    const { root } = await openToolRun();
    await expect(control().handle({ type: 'cancel_request', command_id: 'c1', run_id: root })).rejects.toMatchObject({ code: 'RUN.NOT_FOUND' });
    await expect(control().handle({ type: 'resolve_abandoned', command_id: 'r1', run_id: root, idle_ms: MIN, grace_ms: MIN })).rejects.toMatchObject({ code: 'RUN.NOT_FOUND' });
    await expect(control().handle({ type: 'cancel_request', command_id: 'c2', run_id: randomUUID() })).rejects.toMatchObject({ code: 'RUN.NOT_FOUND' });
  });

  it('Issue 23 RunControl: resolve_abandoned without idle_ms or grace_ms, or with either under the owner\'s floor, is REQUEST.INVALID and records nothing', async () => {
    const { tg } = await openToolRun();
    const before = (await repo('tool-gateway').load(tg)).version;
    for (const times of [{}, { idle_ms: MIN }, { grace_ms: MIN }, { idle_ms: MIN - 1, grace_ms: MIN }, { idle_ms: MIN, grace_ms: 0 }]) {
      await expect(control().handle({ type: 'resolve_abandoned', command_id: `r-${JSON.stringify(times)}`, run_id: tg, ...times })).rejects.toMatchObject({ code: 'REQUEST.INVALID' });
    }
    expect((await repo('tool-gateway').load(tg)).version).toBe(before);
  });

  it('Issue 23 RunControl: a completed db_write run of another tool call, listed as a child, is no proof: the tool run ends failed RUN.ABANDONED, not completed ok', async () => {
    const { tg } = await openToolRun();
    // A finished write under some other tool run: the compromised request names it as tg's child.
    const other = await openToolRun();
    const foreign = randomUUID();
    await record('db-write', foreign, 'db_write', other.root, other.tg, [
      { type: 'DbWriteAudited', data: { lane: '', action: 'insert:tasks', outcome: 'success', request_hash_sha256: 'h', collection: 'tasks', operation: 'insert', document_id: 'd', case_id: null, document_sha256: null, status: 'ok' } },
      { type: 'RunCompleted', data: { output_artifacts: [] } },
    ] as RunEvent[]);
    const answer = await control().handle({ type: 'resolve_abandoned', command_id: 'foreign', run_id: tg, idle_ms: MIN, grace_ms: MIN, child_run_ids: [foreign] });
    expect(answer).toMatchObject({ run_id: tg, outcome: 'resolved', status: 'failed', resolution: { outcome: 'failed', basis: 'nothing recorded' } });
    const events = (await repo('tool-gateway').load(tg)).events;
    expect(events.find((e) => e.type === 'ToolCallAudited')?.data).toMatchObject({ status: 'failed' });
    expect(events.some((e) => e.type === 'RunCompleted')).toBe(false);
  });
});
