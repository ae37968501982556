/**
 * AgentRunGateway (rl.caller.<caller>.runs.start) over a real log, against runs recorded as a release before this one
 * recorded them: a run named with an upper-case run_id (recorded under that id as sent, before run ids were read in
 * lower case) and a run with a failure_strategy this release refuses for new runs.
 */
import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, NatsConnection } from '@nats-io/transport-node';
import { ensureLogStream, EventLog } from '@runledger/event-log';
import type { CallerGrants } from '@runledger/governance';
import type { Bus } from '@runledger/messaging';
import { PolicyCatalog } from '@runledger/policy-catalog';
import { RETRY, RunRepository } from '@runledger/runs';
import { startNatsServer, NatsServerHandle } from '@runledger/testing';
import type { RunWaiter } from '../../runs/run-waiter';
import { AgentRunSpec, hashRequest } from '../domain/run-spec';
import { AgentRunGateway } from './agent-run.gateway';
import { AgentRunWorker } from './agent-run.worker';
import { DeterministicReasoner } from './reasoner';
import { RunForkService } from './run-fork';

const CALLER = 'caller';
const GRANTS = { version: 'callers-test', kinds: {}, roles: { desk: { name: 'desk', cases: ['case-*'], agents: {} } }, callers: { [CALLER]: 'desk' } } as unknown as CallerGrants;
/** No choke point answers: a recorded run ends at its first step, which is all these tests need of it (a terminal run). */
const NO_BUS = { request: () => Promise.reject(new Error('no bus')), requestIdempotent: () => Promise.reject(new Error('no bus')) } as unknown as Bus;

describe('AgentRunGateway over a real log: runs recorded before this release', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let runs: RunRepository;
  let policies: PolicyCatalog;
  let gateway: AgentRunGateway;

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect(server.connectOptions());
    const jsm = await jetstreamManager(nc);
    await ensureLogStream(jsm);
    const log = new EventLog(jetstream(nc), jsm, { producer: 'decision', clock: { now: () => new Date('2026-11-22T10:00:00Z') } });
    runs = new RunRepository(log);
    policies = new PolicyCatalog(log);
    await policies.start();
    // The waiter is never reached: every start below names a finished run (or is refused).
    gateway = new AgentRunGateway(log, runs, policies, {} as RunWaiter, 1_000, GRANTS);
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  /** A run as an earlier release recorded it: under `runId` exactly as given, carried to its end. */
  async function recordedRun(runId: string, parameters: Record<string, unknown>) {
    const request = { agent_name: 'INTAKE_AGENT', case_id: 'case-int', policy_versions: policies.currentVersions(), input_artifacts: [], parameters };
    const spec: AgentRunSpec = { ...request, run_id: runId, root_run_id: runId, correlation_id: runId, request_hash_sha256: hashRequest(request), requested_by: CALLER };
    await new AgentRunWorker(runs, policies, NO_BUS, new DeterministicReasoner(), { toolTimeoutMs: 1_000, retry: RETRY.none }).carry(spec);
    const { state } = await runs.load(runId);
    expect(['completed', 'failed', 'denied']).toContain(state.status);
    return { request: { agent_name: request.agent_name, case_id: request.case_id, input_artifacts: [], parameters }, state };
  }

  it('§2.2 response: a refused runs.start echoes the agent_name it sent when that is a string (as sent, cut to 64 characters), else the empty string', async () => {
    const start = (agent_name: unknown) => gateway.start({ agent_name, case_id: 'case-int', input_artifacts: [], parameters: {} }, CALLER);
    expect(await start('intake_agent')).toMatchObject({ outcome: 'failure', agent_name: 'intake_agent', error: { error_code: 'INVALID_INPUT' } });
    expect((await start(`${'A'.repeat(63)}\u{1F600}`)).agent_name).toBe(`${'A'.repeat(63)}\uFFFD`);
    expect(await start(7)).toMatchObject({ agent_name: '', error: { error_code: 'INVALID_INPUT', message: expect.stringContaining('agent_name must be an agent name') } });
  });

  it('Case ids: runs.start refuses a case id artifacts.ingest refuses (INVALID_INPUT naming its form), and records no run', async () => {
    for (const case_id of ['case-a b\nc', 'case-a.b.*']) {
      const reply = await gateway.start({ agent_name: 'INTAKE_AGENT', case_id, input_artifacts: [], parameters: {} }, CALLER);
      expect(reply).toMatchObject({
        outcome: 'failure', error: { error_code: 'INVALID_INPUT', message: 'The request is not valid: case_id must be a case id: a letter or digit, then letters, digits, . _ : or -', retryable: false },
      });
      expect((await runs.load(reply.run_id)).events).toEqual([]);
    }
  });

  it('README "Run ids": a retried runs.start naming a run recorded under its upper-case run_id (before run ids were read in lower case) answers that run, under that id, and starts nothing', async () => {
    const lower = randomUUID();
    const upper = lower.toUpperCase();
    const { request, state } = await recordedRun(upper, {});
    const before = (await runs.load(upper)).version;

    const reply = await gateway.start({ ...request, run_id: upper }, CALLER);

    expect(reply).toMatchObject({ run_id: upper, outcome: state.status === 'completed' ? 'success' : expect.any(String) });
    expect(reply.error).toMatchObject({ error_code: state.error?.error_code, message: state.error?.message });
    expect((await runs.load(lower)).events).toEqual([]); // no second run under the lower-case id
    expect((await runs.load(upper)).version).toBe(before); // nothing appended to the recorded one
    // The same id sent in lower case finds no run under it and none as sent: that is a new run's id (not this one's).
    expect(await gateway.start({ ...request, run_id: lower, parameters: { failure_strategy: 'bogus' } }, CALLER)).toMatchObject({ run_id: lower, error: { error_code: 'INVALID_INPUT' } });
  });

  it('INV-PE-003: a retry of a run recorded before failure_strategy was checked (with "failfast") answers that run, not INVALID_INPUT; a new run with it is still refused', async () => {
    const runId = randomUUID();
    const { request, state } = await recordedRun(runId, { failure_strategy: 'failfast' });

    const retry = await gateway.start({ ...request, run_id: runId }, CALLER);
    expect(retry.run_id).toBe(runId);
    // The recorded run's own outcome (its error), never the §2.2 refusal of an unknown strategy.
    expect(retry.error).toMatchObject({ error_code: state.error?.error_code, message: state.error?.message });
    expect(retry.error?.message).not.toContain('failure_strategy');

    const fresh = randomUUID();
    expect(await gateway.start({ ...request, run_id: fresh }, CALLER)).toMatchObject({ run_id: fresh, outcome: 'failure', error: { error_code: 'INVALID_INPUT', message: expect.stringContaining('failFast, continueOnError, rollback') } });
    expect((await runs.load(fresh)).events).toEqual([]);
  });

  it('README "Run ids": rl.runs.fork of a source recorded under its upper-case run_id finds that source (its checkpoints are what decide), not "no run with that id"', async () => {
    const lower = randomUUID();
    await recordedRun(lower.toUpperCase(), {});
    const forks = new RunForkService(runs, policies, gateway);
    const req = { run_id: lower, from_step: 'read', request_id: 'fork-1' };
    await expect(forks.fork(req, lower.toUpperCase())).rejects.toMatchObject({ code: 'FORK.CHECKPOINT_NOT_IN_RUN' });
    // Sent in lower case it is a run id no run is recorded under.
    await expect(forks.fork(req, lower)).rejects.toMatchObject({ code: 'FORK.RUN_NOT_FOUND' });
  });
});
