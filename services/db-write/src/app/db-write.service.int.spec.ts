import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, NatsConnection } from '@nats-io/transport-node';
import type { DbWriteRequestDto, GovernanceScope } from '@runledger/contracts';
import { NatsKvDocumentStore } from '@runledger/document-store';
import { ensureLogStream, EventLog } from '@runledger/event-log';
import { checkAuditCoverage } from '@runledger/governance';
import { PolicyCatalog } from '@runledger/policy-catalog';
import { authzDecidedOf, CallerVerifier, childRequestHash, childRunCreatedOf, childRunId, RunRepository, runChildOnce } from '@runledger/runs';
import { startNatsServer, NatsServerHandle } from '@runledger/testing';
import { evolveDomainDocuments, initialDomainDocuments } from '../domain/documents';
import { DbWriteService } from './db-write.service';

jest.setTimeout(30_000);

/**
 * Issue 22: a db-write append (create-if-absent, id derived from the child run) is recorded in ONE commit after the
 * document is created; every other operation keeps its opening before the effect. Real nats-server, real log, real
 * KV document store.
 */
describe('Issue 22 db-write on a real log and store: an append is recorded in one commit', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let runs: RunRepository;
  let callerLog: RunRepository;
  let store: NatsKvDocumentStore;
  let policies: PolicyCatalog;
  let service: DbWriteService;

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect(server.connectOptions());
    const jsm = await jetstreamManager(nc);
    await ensureLogStream(jsm);
    const clock = { now: () => new Date() };
    const log = new EventLog(jetstream(nc), jsm, { producer: 'db-write', clock });
    runs = new RunRepository(log);
    callerLog = new RunRepository(new EventLog(jetstream(nc), jsm, { producer: 'decision', clock }));
    policies = new PolicyCatalog(log);
    await policies.start();
    store = new NatsKvDocumentStore(nc);
    service = new DbWriteService(runs, new CallerVerifier(runs), policies, store);
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  /** A running task-assistant run of user u1: the caller the writes name as parent. */
  async function caller(): Promise<GovernanceScope> {
    const runId = randomUUID();
    const created = {
      run_id: runId, run_kind: 'agent' as const, agent_name: 'TASK_ASSISTANT', root_run_id: runId, user_id: 'u1', lane: 'TASKS', contract_version: 'v1',
      policy_versions: policies.currentVersions(), input_artifacts: [], parameters: {}, request_hash_sha256: 'h',
    };
    await callerLog.append(created, [{ type: 'RunCreated', data: created }, { type: 'AuthzDecided', data: { decision: 'allow', policy_versions: created.policy_versions } }, { type: 'RunStarted', data: {} }], { expectedVersion: 0, commandId: `open:${runId}` });
    return { parent_run_id: runId, root_run_id: runId, agent_name: 'TASK_ASSISTANT', lane: 'TASKS', user_id: 'u1', policy_versions: created.policy_versions };
  }
  const addTask = (g: GovernanceScope, taskId = randomUUID()): DbWriteRequestDto => ({
    write_id: 'add', collection: 'tasks', operation: 'append', document_id: taskId, document: { task_id: taskId, description: 'buy milk', status: 'pending' }, governance: g,
  }) as DbWriteRequestDto;
  const runOf = (req: DbWriteRequestDto) => childRunId('db_write', req.governance.parent_run_id, req.write_id);
  /** The child run's commits as event types, one array per stored message. */
  const commits = async (runId: string) => {
    const bySeq = new Map<number, string[]>();
    for (const e of await runs.events(runId)) bySeq.set(e.seq, [...(bySeq.get(e.seq) ?? []), e.type]);
    return [...bySeq.values()];
  };
  const tasks = () => store.collection<Record<string, unknown>>('tasks');
  const ONE_COMMIT = [['RunCreated', 'AuthzDecided', 'RunStarted', 'DbWriteAudited', 'RunCompleted']];

  it('an append creates the document, then records its run in one commit at version 0', async () => {
    const req = addTask(await caller());
    const res = await service.write(req);
    expect(res).toMatchObject({ status: 'ok', child_run_id: runOf(req), document: { task_id: req.document_id, description: 'buy milk' } });
    expect(await commits(runOf(req))).toEqual(ONE_COMMIT);
    const stored = (await tasks().get(req.document_id!))?.value;
    expect(stored).toMatchObject({ task_id: req.document_id, owner_id: 'u1' });
    // Contract 001 §6 coverage and db-write's own fold (what `runledger replay` rebuilds) read the one commit as they read two.
    const events = await runs.events(runOf(req));
    expect(checkAuditCoverage(events.map((e) => ({ run_id: runOf(req), type: e.type, data: e.data })))).toMatchObject({ ok: true, violations: [] });
    const folded = events.reduce(evolveDomainDocuments, initialDomainDocuments());
    expect({ doc: folded.collections.get('tasks')?.get(req.document_id!), pending: folded.pending.size }).toEqual({ doc: stored, pending: 0 });
  });

  it('an append retried after its document was removed (erased, deleted) is answered as recorded and the document is not brought back', async () => {
    const req = addTask(await caller());
    const first = await service.write(req);
    expect(await tasks().delete(req.document_id!)).toBe(true);
    const again = await service.write(req);
    expect(again).toEqual(first);
    expect(await tasks().get(req.document_id!)).toBeNull();
    expect(await commits(runOf(req))).toEqual(ONE_COMMIT);
  });

  it('a crash between the create and the commit: the caller asking again with the same write_id records the existing document', async () => {
    const req = addTask(await caller());
    jest.spyOn(runs, 'appendEvents').mockRejectedValueOnce(new Error('db-write killed before its commit'));
    await expect(service.write(req)).rejects.toThrow('killed');
    expect(await tasks().get(req.document_id!)).not.toBeNull();
    expect(await commits(runOf(req))).toEqual([]);
    jest.restoreAllMocks();
    expect(await service.write(req)).toMatchObject({ status: 'ok', document: { task_id: req.document_id } });
    expect(await commits(runOf(req))).toEqual(ONE_COMMIT);
  });

  it('a retry of a recorded append applies nothing and answers the recorded outcome', async () => {
    const req = addTask(await caller());
    const first = await service.write(req);
    const revision = (await tasks().get(req.document_id!))!.revision;
    expect(await service.write(req)).toEqual(first);
    expect((await tasks().get(req.document_id!))!.revision).toBe(revision);
    expect(await commits(runOf(req))).toEqual(ONE_COMMIT);
  });

  it('an append whose run an earlier release opened (two-commit attempt cut short) is closed with the document', async () => {
    const req = addTask(await caller());
    // The opening that release wrote before its effect; its effect never ran.
    await expect(runChildOnce(runs, specOf(req), async () => {
      throw new Error('killed after the opening');
    })).rejects.toThrow('killed');
    expect(await service.write(req)).toMatchObject({ status: 'ok', document: { task_id: req.document_id } });
    expect(await commits(runOf(req))).toEqual([['RunCreated', 'AuthzDecided', 'RunStarted'], ['DbWriteAudited', 'RunCompleted']]);
  });

  it('concurrent duplicates of one append (a caller\'s retry while the first is in flight): the one that records second leaves the document the first recorded', async () => {
    const req = addTask(await caller());
    // The first attempt is held after its create, before its commit, until the duplicate has found the document and recorded it.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let reachedCommit!: () => void;
    const atCommit = new Promise<void>((resolve) => (reachedCommit = resolve));
    const append = runs.appendEvents.bind(runs);
    jest.spyOn(runs, 'appendEvents').mockImplementationOnce(async (...args) => {
      reachedCommit();
      await held;
      return append(...args);
    });
    const first = service.write(req);
    await atCommit;
    const duplicate = await service.write(req);
    release();
    expect(await first).toEqual(duplicate);
    expect(duplicate).toMatchObject({ status: 'ok', document: { task_id: req.document_id } });
    expect((await tasks().get(req.document_id!))?.value).toMatchObject({ task_id: req.document_id });
    expect(await commits(runOf(req))).toEqual(ONE_COMMIT);
  });

  it('a denied append is recorded as a denial and creates nothing', async () => {
    const g = await caller();
    const req = addTask({ ...g, agent_name: 'SOMEONE_ELSE' });
    expect(await service.write(req)).toMatchObject({ status: 'denied', error: { error_code: 'RUN.CLAIM_MISMATCH' } });
    expect(await tasks().get(req.document_id!)).toBeNull();
    expect(await commits(runOf(req))).toEqual([['RunCreated', 'AuthzDecided', 'RunDenied']]);
  });

  it('an update (not idempotent on a re-run) keeps its opening before the effect: two commits', async () => {
    const g = await caller();
    const added = addTask(g);
    await service.write(added);
    const update = { write_id: 'done', collection: 'tasks', operation: 'update', document_id: added.document_id, patch: { status: 'completed' }, governance: g } as DbWriteRequestDto;
    expect(await service.write(update)).toMatchObject({ status: 'ok', document: { status: 'completed' } });
    expect(await commits(runOf(update))).toEqual([['RunCreated', 'AuthzDecided', 'RunStarted'], ['DbWriteAudited', 'RunCompleted']]);
  });

  /** The child run's spec as db-write builds it (for the earlier release's two-commit attempt above). */
  function specOf(req: DbWriteRequestDto) {
    const g = req.governance;
    return {
      created: childRunCreatedOf('db_write', runOf(req), g, {
        parameters: { collection: req.collection, operation: req.operation, document_id: req.document_id ?? null },
        request_hash_sha256: childRequestHash({ collection: req.collection, operation: req.operation, document_id: req.document_id, document: req.document, patch: req.patch }),
      }),
      authz: authzDecidedOf({ decision: 'allow' }, { lane: g.lane, action: `${req.operation}:${req.collection}`, policy_versions: g.policy_versions }),
    };
  }
});
