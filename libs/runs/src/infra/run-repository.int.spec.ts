import { connect, NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { ensureLogStream, EventLog } from '@runledger/event-log';
import { startNatsServer, NatsServerHandle } from '@runledger/testing';
import { ChildRunSpec, RunRepository, runChildOnce } from './run-repository';

describe('runChildOnce on a real log', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let repo: RunRepository;

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect(server.connectOptions());
    const jsm = await jetstreamManager(nc);
    await ensureLogStream(jsm);
    repo = new RunRepository(new EventLog(jetstream(nc), jsm, { producer: 'spec', clock: { now: () => new Date('2026-01-01T00:00:00Z') } }));
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  const spec = (runId: string, hash = 'h1'): ChildRunSpec => ({
    created: {
      run_id: runId, run_kind: 'tool_gateway', agent_name: 'TASK_ASSISTANT', root_run_id: 'root', parent_run_id: 'root', contract_version: 'v1',
      policy_versions: { lanes: 'l', roles: 'r' }, input_artifacts: [], parameters: {}, request_hash_sha256: hash,
    },
    authz: { decision: 'allow', policy_versions: { lanes: 'l', roles: 'r' } },
  });
  const effect = (counter: { n: number }) => async () => {
    counter.n++;
    return { status: 'completed' as const, result: { ok: true }, audit: [{ type: 'ToolCallAudited', data: { status: 'ok' } }] };
  };

  it('Effects happen once: a second call returns the recorded outcome without running the effect', async () => {
    const calls = { n: 0 };
    const first = await runChildOnce(repo, spec('c-once'), effect(calls));
    const again = await runChildOnce(repo, spec('c-once'), effect(calls));
    expect({ first: first.status, again: again.status, replayed: again.replayed, calls: calls.n }).toEqual({ first: 'completed', again: 'completed', replayed: true, calls: 1 });
  });

  it('Crash safety: a run whose opening was cut short (only RunCreated stored) is completed, not left stuck', async () => {
    const s = spec('c-partial');
    await repo.append(s.created, [{ type: 'RunCreated', data: s.created }], { expectedVersion: 0, commandId: 'crashed-open' });
    const calls = { n: 0 };
    const out = await runChildOnce(repo, s, effect(calls));
    expect({ status: out.status, calls: calls.n, anomalies: out.state.anomalies }).toEqual({ status: 'completed', calls: 1, anomalies: [] });
    expect((await repo.load('c-partial')).events.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'ToolCallAudited', 'RunCompleted']);
  });

  it('Effects happen once past the duplicate window: a finished run the claim at version 0 does not recognise is loaded, and its effect not run again', async () => {
    const s = spec('c-old');
    // Recorded under other command ids: the log's msgID dedup cannot recognise it, only the version can.
    await repo.append(s.created, [{ type: 'RunCreated', data: s.created }, { type: 'AuthzDecided', data: s.authz }, { type: 'RunStarted', data: {} }, { type: 'RunCompleted', data: { output_artifacts: [], result: { ok: 'before' } } }], { expectedVersion: 0, commandId: 'long-ago' });
    const calls = { n: 0 };
    const out = await runChildOnce(repo, s, effect(calls));
    expect({ status: out.status, replayed: out.replayed, result: out.result, calls: calls.n }).toEqual({ status: 'completed', replayed: true, result: { ok: 'before' }, calls: 0 });
  });

  it('the same action id with a different request is refused and runs nothing', async () => {
    const calls = { n: 0 };
    await runChildOnce(repo, spec('c-hash', 'h1'), effect(calls));
    await expect(runChildOnce(repo, spec('c-hash', 'h2'), effect(calls))).rejects.toMatchObject({ code: 'REQUEST.INVALID' });
    expect(calls.n).toBe(1);
  });
});
