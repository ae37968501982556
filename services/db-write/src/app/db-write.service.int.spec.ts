import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { DbReadRequestDto, DbWriteRequestDto, GovernanceScope } from '@runledger/contracts';
import { NatsKvDocumentStore } from '@runledger/document-store';
import { ensureLogStream, EventLog } from '@runledger/event-log';
import { PolicyCatalog } from '@runledger/policy-catalog';
import { CallerVerifier, childRunId, RunRepository } from '@runledger/runs';
import { useNatsServer } from '@runledger/testing';
import { DbWriteService } from './db-write.service';

jest.setTimeout(60_000);

/**
 * db-write's own answer when the store refuses a write's input (defence in depth: the DTO refuses the same ids first,
 * with the same rule, so this is what a write that reaches the service unvalidated, or a rule the DTO lacks, gets).
 */
describe('Bad input gets a specific error code: a write the document store refuses ends its db_write run failed, REQUEST.INVALID, not retryable', () => {
  const nats = useNatsServer();
  let runs: RunRepository;
  let decision: RunRepository;
  let store: NatsKvDocumentStore;
  let service: DbWriteService;
  let versions: { lanes: string; roles: string };

  beforeAll(async () => {
    const jsm = await jetstreamManager(nats.nc);
    await ensureLogStream(jsm);
    const log = (producer: string) => new EventLog(jetstream(nats.nc), jsm, { producer, clock: { now: () => new Date('2026-11-28T10:00:00Z') } });
    runs = new RunRepository(log('db-write'));
    decision = new RunRepository(log('decision'));
    const policies = new PolicyCatalog(log('db-write'));
    await policies.start();
    versions = policies.currentVersions();
    store = new NatsKvDocumentStore(nats.nc);
    service = new DbWriteService(runs, new CallerVerifier(runs), policies, store);
  });
  afterAll(() => store?.close());

  /** An agent's run (by default an interview agent's, of one case), recorded as decision records it: the caller. */
  const caller = async (case_id?: string, agent_name = 'INTERVIEW_AGENT', lane = 'WRITE_INTAKE_ARTIFACTS', user_id?: string): Promise<GovernanceScope> => {
    const run_id = randomUUID();
    const owner = { ...(case_id ? { case_id } : {}), ...(user_id ? { user_id } : {}) };
    await decision.append({ run_id, root_run_id: run_id, ...owner }, [
      { type: 'RunCreated', data: { run_id, run_kind: 'agent', agent_name, root_run_id: run_id, ...owner, contract_version: 'v1', policy_versions: versions, input_artifacts: [], parameters: {}, request_hash_sha256: 'a'.repeat(64) } },
      { type: 'AuthzDecided', data: { decision: 'allow', action: 'agent.run.start', policy_versions: versions } },
      { type: 'RunStarted', data: {} },
    ], { expectedVersion: 0, commandId: `caller:${run_id}` });
    return { parent_run_id: run_id, root_run_id: run_id, agent_name, lane, ...owner, policy_versions: versions };
  };

  it.each([
    ['a control character', 'doc\u0001id', 'invalid document id: must not hold control characters'],
    ['more than 512 bytes as UTF-8', '€'.repeat(171), 'invalid document id: must be at most 512 bytes as UTF-8 (it is 513)'],
  ])('a document id with %s: the run fails with REQUEST.INVALID naming the problem, a retry answers the recorded failure, nothing is stored', async (_what, document_id, problem) => {
    const case_id = `case-${randomUUID().slice(0, 8)}`;
    const governance = await caller(case_id);
    const write = { write_id: `w-${randomUUID()}`, collection: 'transcripts', operation: 'append', document_id, document: { case_id, text: 'notes' }, governance } as DbWriteRequestDto;
    const first = await service.write(write);
    const error = { error_code: 'REQUEST.INVALID', message: `The document store refuses this request: ${problem}.`, retryable: false };
    expect(first).toEqual({ child_run_id: childRunId('db_write', governance.parent_run_id, write.write_id), status: 'failed', error });
    expect(first.error!.message).not.toContain(document_id);

    const { state, version } = await runs.load(first.child_run_id!);
    expect(state).toMatchObject({ status: 'failed', error });
    const events = await runs.log.read(runs.refOf({ run_id: first.child_run_id!, run_kind: 'db_write' }).subject);
    expect(events.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'DbWriteAudited', 'RunFailed']);
    expect(events.find((e) => e.type === 'DbWriteAudited')!.data).toMatchObject({ outcome: 'failure', status: 'failed', error_code: 'REQUEST.INVALID', document_id });

    // The same write again is answered from the log: the same failure, nothing appended, nothing stored.
    expect(await service.write(write)).toEqual(first);
    expect((await runs.load(first.child_run_id!)).version).toBe(version);
    expect(await store.collection('transcripts').find({ case_id })).toEqual([]);
  });

  it('a read the store refuses for its input (a filter field name it cannot query, a bad document id) is REQUEST.INVALID, not INTERNAL', async () => {
    const governance = await caller(undefined, 'TASK_ASSISTANT', 'TASKS', 'u-reader');
    const read = (over: Partial<DbReadRequestDto>) => service.read({ collection: 'tasks', governance, ...over } as DbReadRequestDto);
    for (const [over, problem] of [
      [{ filter: { 'a.b': 1 } }, "invalid filter field name: use a top-level field name of letters, digits, '_' or '-'"],
      [{ document_id: 'doc\u0001id' }, 'invalid document id: must not hold control characters'],
    ] as const) {
      await expect(read(over)).rejects.toMatchObject({ code: 'REQUEST.INVALID', retryable: false, message: `The document store refuses this request: ${problem}.` });
    }
  });
});
