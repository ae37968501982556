import type { RunCreatedData } from '../domain/run-events';
import { CallerClaims, CallerVerifier } from './caller-verifier';
import type { RunRepository } from './run-repository';
import { runRepositoryOnRealLog } from './real-log.fixture';

/** Issue 22: a choke point verifies its caller with one read of the log per hop, refusing what it refused before. */
describe('Issue 22 CallerVerifier: one read per hop on a real log', () => {
  const log = runRepositoryOnRealLog('tool-gateway');
  let repo: RunRepository;
  beforeAll(() => {
    repo = log.repo();
  });

  const created = (runId: string, kind: RunCreatedData['run_kind'] = 'tool_gateway'): RunCreatedData => ({
    run_id: runId, run_kind: kind, agent_name: 'TASK_ASSISTANT', root_run_id: runId, contract_version: 'v1',
    policy_versions: { lanes: 'l', roles: 'r' }, input_artifacts: [], parameters: {}, request_hash_sha256: 'h',
  });
  const claims = (runId: string): CallerClaims => ({ parent_run_id: runId, root_run_id: runId, agent_name: 'TASK_ASSISTANT', policy_versions: { lanes: 'l', roles: 'r' } });
  const allow = () => ({ decision: 'allow' as const });
  /** The direct gets a verifier makes, counted on the log it reads. */
  const countingReads = () => {
    const counts = { reads: 0 };
    const l = repo.log as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
    for (const name of ['lastCommit', 'first', 'last', 'read'] as const) {
      const original = l[name].bind(repo.log);
      jest.spyOn(repo.log, name).mockImplementation(((...args: unknown[]) => {
        counts.reads++;
        return original(...args);
      }) as never);
    }
    return counts;
  };
  afterEach(() => jest.restoreAllMocks());

  const open = (runId: string, kind: RunCreatedData['run_kind'] = 'tool_gateway') =>
    repo.appendEvents({ run_id: runId, root_run_id: runId, run_kind: kind }, [
      { type: 'RunCreated', data: created(runId, kind) },
      { type: 'ToolCallRequested', data: { call_id: 'call-1', sequence: 1, tool_name: 't', parameters: {}, child_run_id: `${runId}-child` } },
    ], { expectedVersion: 0, commandId: `open:${runId}` });

  it('Issue 22 a caller whose last commit is its opening (its first request goes out with it) is verified with one read', async () => {
    await open('caller-opening');
    const counts = countingReads();
    const decided = await new CallerVerifier(repo).decideChild(claims('caller-opening'), allow);
    expect({ decided, reads: counts.reads }).toEqual({ decided: { decision: 'allow' }, reads: 1 });
    // Read sealed: the check reads ids, types and unsealed fields, so nothing is decrypted for it.
    expect(repo.log.lastCommit).toHaveBeenCalledWith('rl.log.run.*.caller-opening', { sealed: true });
  });

  it('Issue 22 the next caller is read on its owner\'s exact subject (no wildcard get, which nats-server 2.9 answers by matching every subject of a block); a caller of another owner is still found', async () => {
    await open('caller-first');
    await open('caller-second');
    const other = log.repo('decision');
    await other.appendEvents({ run_id: 'caller-other-owner', root_run_id: 'caller-other-owner', run_kind: 'agent' }, [{ type: 'RunCreated', data: created('caller-other-owner', 'agent') }], { expectedVersion: 0, commandId: 'open:caller-other-owner' });
    const verifier = new CallerVerifier(repo);
    await verifier.decideChild(claims('caller-first'), allow);
    const counts = countingReads();
    expect(await verifier.decideChild(claims('caller-second'), allow)).toEqual({ decision: 'allow' });
    expect(counts.reads).toBe(1);
    expect(repo.log.lastCommit).toHaveBeenCalledWith('rl.log.run.tool-gateway.caller-second', { sealed: true });
    // Nothing under the guessed owner's name: looked up under any owner's, and verified as before.
    expect(await verifier.decideChild(claims('caller-other-owner'), allow)).toEqual({ decision: 'allow' });
    expect(repo.log.lastCommit).toHaveBeenCalledWith('rl.log.run.*.caller-other-owner', { sealed: true });
    expect(counts.reads).toBe(3);
  });

  it('Issue 22 a caller that went on since its opening is read as before (owner, then its last commit): a finished one parents nothing', async () => {
    const { version } = await open('caller-finished');
    await repo.appendEvents({ run_id: 'caller-finished', root_run_id: 'caller-finished', run_kind: 'tool_gateway' }, [{ type: 'RunCompleted', data: { output_artifacts: [] } }], { expectedVersion: version, commandId: 'close:caller-finished' });
    const decided = await new CallerVerifier(repo).decideChild(claims('caller-finished'), allow);
    expect(decided).toMatchObject({ decision: 'deny', code: 'RUN.PARENT_TERMINAL' });
  });

  it('Issue 23 a run opened under a name that may not create its kind (an agent run on tool-gateway\'s subject) is no caller: RUN.UNKNOWN_CALLER', async () => {
    await open('caller-forged', 'agent');
    const decided = await new CallerVerifier(repo).decideChild(claims('caller-forged'), allow);
    expect(decided).toMatchObject({ decision: 'deny', code: 'RUN.UNKNOWN_CALLER' });
  });

  it('Issue 22 claims that differ from the opening read in that one commit are refused: RUN.CLAIM_MISMATCH', async () => {
    await open('caller-claims');
    const decided = await new CallerVerifier(repo).decideChild({ ...claims('caller-claims'), agent_name: 'OTHER' }, allow);
    expect(decided).toMatchObject({ decision: 'deny', code: 'RUN.CLAIM_MISMATCH' });
  });

  it('Issue 22 no run under the id: RUN.UNKNOWN_CALLER', async () => {
    expect(await new CallerVerifier(repo).decideChild(claims('caller-none'), allow)).toMatchObject({ decision: 'deny', code: 'RUN.UNKNOWN_CALLER' });
  });
});
