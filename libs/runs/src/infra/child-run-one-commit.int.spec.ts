import { RunRepository } from './run-repository';
import { runRepositoryOnRealLog } from './real-log.fixture';
import { ChildRunSpec, IdempotentEffect, recordChildWithOutcome, runChildOnce } from './child-run';

/**
 * Issue 22: a child run of an idempotent effect (db-write's create-if-absent) is recorded in ONE commit after the
 * effect. What the log holds when the effect has run decides what is recorded, answered or undone.
 */
describe('Issue 22 recordChildWithOutcome on a real log: effect first, then one commit', () => {
  const log = runRepositoryOnRealLog('db-write');
  let repo: RunRepository;
  beforeAll(() => {
    repo = log.repo();
  });

  const spec = (runId: string, opts: { hash?: string; deny?: boolean } = {}): ChildRunSpec => ({
    created: {
      run_id: runId, run_kind: 'db_write', agent_name: 'TASK_ASSISTANT', root_run_id: 'root', parent_run_id: 'root', contract_version: 'v1',
      policy_versions: { lanes: 'l', roles: 'r' }, input_artifacts: [], parameters: { collection: 'tasks', operation: 'append', document_id: null }, request_hash_sha256: opts.hash ?? 'h1',
    },
    authz: opts.deny ? { decision: 'deny', code: 'LANE.DENIED', reason: 'not this lane', policy_versions: { lanes: 'l', roles: 'r' } } : { decision: 'allow', policy_versions: { lanes: 'l', roles: 'r' } },
  });

  /** A create-if-absent of one document (made: the first call; found: every later one), counting what it did. */
  const store = () => {
    const s = { exists: false, created: 0, undone: 0, adopted: 0 };
    const effect = async (): Promise<IdempotentEffect<{ doc: string }>> => {
      const made = !s.exists;
      s.exists = true;
      if (made) s.created++;
      const outcome = { status: 'completed' as const, result: { doc: 'd1' }, audit: [{ type: 'DbWriteAudited', data: { status: 'ok' } }] };
      return made
        ? { made, outcome, undo: async () => void (s.undone++, (s.exists = false)) }
        : { made, outcome, adopt: async () => void s.adopted++ };
    };
    return { s, effect };
  };
  /** The run's commits as event types, one array per stored message. */
  const commits = async (runId: string) => {
    const bySeq = new Map<number, string[]>();
    for (const e of (await repo.load(runId)).events) bySeq.set(e.seq, [...(bySeq.get(e.seq) ?? []), e.type]);
    return [...bySeq.values()];
  };
  const recordedBefore = (s: ChildRunSpec, result: unknown) =>
    repo.append(s.created, [{ type: 'RunCreated', data: s.created }, { type: 'AuthzDecided', data: s.authz }, { type: 'RunStarted', data: {} }, { type: 'DbWriteAudited', data: { status: 'ok' } }, { type: 'RunCompleted', data: { output_artifacts: [], result } }], { expectedVersion: 0, commandId: 'earlier' });
  const openedBefore = (s: ChildRunSpec) =>
    repo.append(s.created, [{ type: 'RunCreated', data: s.created }, { type: 'AuthzDecided', data: s.authz }, { type: 'RunStarted', data: {} }], { expectedVersion: 0, commandId: 'two-commit-open' });

  it('a new write: the effect, then one commit (opening, audit event and outcome) at version 0', async () => {
    const { s, effect } = store();
    const out = await recordChildWithOutcome(repo, spec('one-new'), effect);
    expect({ status: out.status, result: out.result, replayed: out.replayed, created: s.created }).toEqual({ status: 'completed', result: { doc: 'd1' }, replayed: false, created: 1 });
    expect(await commits('one-new')).toEqual([['RunCreated', 'AuthzDecided', 'RunStarted', 'DbWriteAudited', 'RunCompleted']]);
    expect(out.state.anomalies).toEqual([]);
  });

  it('a denial is recorded as before and the effect never runs', async () => {
    const { s, effect } = store();
    const out = await recordChildWithOutcome(repo, spec('one-denied', { deny: true }), effect);
    expect({ status: out.status, code: out.error?.error_code, created: s.created }).toEqual({ status: 'denied', code: 'LANE.DENIED', created: 0 });
    expect(await commits('one-denied')).toEqual([['RunCreated', 'AuthzDecided', 'RunDenied']]);
  });

  it('made, but the run was recorded before (its document since removed): what we made is undone and the recorded outcome answered', async () => {
    const s1 = spec('one-removed');
    await recordedBefore(s1, { doc: 'recorded' });
    const { s, effect } = store();
    const out = await recordChildWithOutcome(repo, s1, effect);
    expect({ status: out.status, result: out.result, replayed: out.replayed, created: s.created, undone: s.undone, exists: s.exists }).toEqual({ status: 'completed', result: { doc: 'recorded' }, replayed: true, created: 1, undone: 1, exists: false });
    expect(await commits('one-removed')).toHaveLength(1);
  });

  it('made, and the run is open (a two-commit attempt of an earlier release): it is closed with our outcome, nothing undone', async () => {
    const s1 = spec('one-made-open');
    await openedBefore(s1);
    const { s, effect } = store();
    const out = await recordChildWithOutcome(repo, s1, effect);
    expect({ status: out.status, result: out.result, undone: s.undone, exists: s.exists }).toEqual({ status: 'completed', result: { doc: 'd1' }, undone: 0, exists: true });
    expect(await commits('one-made-open')).toEqual([['RunCreated', 'AuthzDecided', 'RunStarted'], ['DbWriteAudited', 'RunCompleted']]);
  });

  it('found, and the run is recorded: the recorded outcome is answered, nothing applied or adopted', async () => {
    const s1 = spec('one-found-done');
    const { s, effect } = store();
    await recordChildWithOutcome(repo, s1, effect);
    const again = await recordChildWithOutcome(repo, s1, effect);
    expect({ status: again.status, replayed: again.replayed, created: s.created, adopted: s.adopted, undone: s.undone }).toEqual({ status: 'completed', replayed: true, created: 1, adopted: 0, undone: 0 });
    expect(await commits('one-found-done')).toHaveLength(1);
  });

  it('found, and no run (an attempt crashed between its effect and its commit): the retry adopts it and records it in one commit', async () => {
    const s1 = spec('one-found-absent');
    const { s, effect } = store();
    const dying = Object.create(repo) as RunRepository;
    dying.appendEvents = async () => {
      throw new Error('process died before the commit');
    };
    await expect(recordChildWithOutcome(dying, s1, effect)).rejects.toThrow('process died');
    expect(await commits('one-found-absent')).toEqual([]);
    const out = await recordChildWithOutcome(repo, s1, effect);
    expect({ status: out.status, result: out.result, created: s.created, adopted: s.adopted }).toEqual({ status: 'completed', result: { doc: 'd1' }, created: 1, adopted: 1 });
    expect(await commits('one-found-absent')).toEqual([['RunCreated', 'AuthzDecided', 'RunStarted', 'DbWriteAudited', 'RunCompleted']]);
  });

  it('found, and the run is open: it is adopted and the run closed with it', async () => {
    const s1 = spec('one-found-open');
    const { s, effect } = store();
    s.exists = true;
    await openedBefore(s1);
    const out = await recordChildWithOutcome(repo, s1, effect);
    expect({ status: out.status, adopted: s.adopted, created: s.created }).toEqual({ status: 'completed', adopted: 1, created: 0 });
    expect(await commits('one-found-open')).toEqual([['RunCreated', 'AuthzDecided', 'RunStarted'], ['DbWriteAudited', 'RunCompleted']]);
  });

  it('the same id with a different request: what was made is undone and the request refused (REQUEST.INVALID)', async () => {
    await recordedBefore(spec('one-reused'), { doc: 'other' });
    const { s, effect } = store();
    await expect(recordChildWithOutcome(repo, spec('one-reused', { hash: 'h2' }), effect)).rejects.toMatchObject({ code: 'REQUEST.INVALID' });
    expect({ undone: s.undone, exists: s.exists }).toEqual({ undone: 1, exists: false });
  });

  it('an effect that throws leaves the allowed run open, as runChildOnce does: the caller asks again and it is closed', async () => {
    const s1 = spec('one-throws');
    await expect(recordChildWithOutcome(repo, s1, async () => {
      throw new Error('store unreachable');
    })).rejects.toThrow('store unreachable');
    expect(await commits('one-throws')).toEqual([['RunCreated', 'AuthzDecided', 'RunStarted']]);
    const { effect } = store();
    expect(await recordChildWithOutcome(repo, s1, effect)).toMatchObject({ status: 'completed', replayed: false });
  });

  it('a run recorded by runChildOnce (two commits, old data) is answered, never re-applied', async () => {
    const s1 = spec('one-old-data');
    const { s, effect } = store();
    await runChildOnce(repo, s1, async () => (await effect()).outcome);
    expect(await commits('one-old-data')).toHaveLength(2);
    const out = await recordChildWithOutcome(repo, s1, effect);
    expect({ status: out.status, replayed: out.replayed, created: s.created, adopted: s.adopted }).toEqual({ status: 'completed', replayed: true, created: 1, adopted: 0 });
  });
});
