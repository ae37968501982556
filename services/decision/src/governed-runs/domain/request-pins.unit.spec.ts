import type { RunCreatedData } from '@runledger/runs';
import { parametersProblem, resolvePins } from './request-pins';
import { childMismatch, childSpec } from './run-spec';

const OLD = { lanes: 'lanes-1', roles: 'roles-1' };
const CURRENT = { lanes: 'lanes-2', roles: 'roles-1' };
const created = (over: Partial<RunCreatedData>): RunCreatedData => ({
  run_id: 'run-1', run_kind: 'agent', agent_name: 'ORCHESTRATOR', root_run_id: 'root-1', case_id: 'case-a', contract_version: 'v1',
  policy_versions: OLD, input_artifacts: [], parameters: {}, request_hash_sha256: 'h', ...over,
});

describe('pins of a request (§1): from the log, never an older policy the caller picks', () => {
  it('a new top-level run pins the current versions; stating them is fine, stating older ones is refused', () => {
    expect(resolvePins({ case_id: 'case-a' }, { current: CURRENT })).toEqual({ ok: true, policy_versions: CURRENT });
    expect(resolvePins({ case_id: 'case-a', policy_versions: CURRENT }, { current: CURRENT })).toMatchObject({ ok: true });
    expect(resolvePins({ case_id: 'case-a', policy_versions: OLD }, { current: CURRENT })).toMatchObject({ ok: false, code: 'INVALID_INPUT', message: expect.stringContaining('POLICY') });
  });

  it('a retry keeps its run’s pins and root; a child inherits its parent’s', () => {
    const existing = created({ run_id: 'run-x', root_run_id: 'root-x' });
    expect(resolvePins({ case_id: 'case-a', policy_versions: OLD }, { existing, current: CURRENT })).toEqual({ ok: true, policy_versions: OLD, root_run_id: 'root-x' });
    expect(resolvePins({ case_id: 'case-a', parent_run_id: 'p' }, { existing, current: CURRENT })).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
    const parent = created({ run_id: 'p', root_run_id: 'root-p' });
    expect(resolvePins({ case_id: 'case-a', parent_run_id: 'p' }, { parent, current: CURRENT })).toEqual({ ok: true, policy_versions: OLD, root_run_id: 'root-p' });
    expect(resolvePins({ case_id: 'case-a', parent_run_id: 'p', policy_versions: CURRENT }, { parent, current: CURRENT })).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
  });

  it('a parent must be recorded and of the same case', () => {
    expect(resolvePins({ case_id: 'case-a', parent_run_id: 'p' }, { current: CURRENT })).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
    expect(resolvePins({ case_id: 'case-b', parent_run_id: 'p' }, { parent: created({ run_id: 'p' }), current: CURRENT })).toMatchObject({ ok: false, code: 'CASE.CROSS_CASE_DENIED' });
    expect(resolvePins({ case_id: 'case-b', parent_run_id: 'p' }, { parent: created({ run_id: 'p', case_id: undefined }), current: CURRENT })).toMatchObject({ ok: false, code: 'CASE.CROSS_CASE_DENIED' });
  });

  it('client identifiers never ride in parameters (they would be logged)', () => {
    expect(parametersProblem({ client_identifiers: ['x'] })).toMatch(/client_identifiers input artifact/);
    expect(parametersProblem({ coa_version: 'coa-2026.1' })).toBeUndefined();
  });

  it('INV-PE-003: a failure_strategy the workflows do not know is refused naming the allowed values, never run as the default; one of the three, or none, is taken', () => {
    const allowed = 'parameters.failure_strategy must be one of the following values: failFast, continueOnError, rollback (or left out: failFast)';
    for (const failure_strategy of ['bogus', 'failfast', 'FAILFAST', '', null, 1, ['rollback'], { rollback: true }]) {
      expect({ failure_strategy, problem: parametersProblem({ failure_strategy }) }).toEqual({ failure_strategy, problem: allowed });
    }
    for (const failure_strategy of ['failFast', 'continueOnError', 'rollback']) expect(parametersProblem({ failure_strategy })).toBeUndefined();
    expect(parametersProblem({})).toBeUndefined();
  });

  it('INV-PE-003: the failure_strategy check is for a new run only: a run already recorded (before the check, with "failfast") is not refused, client_identifiers still is', () => {
    expect(parametersProblem({ failure_strategy: 'failfast' }, { recorded: true })).toBeUndefined();
    expect(parametersProblem({ client_identifiers: ['x'] }, { recorded: true })).toMatch(/client_identifiers input artifact/);
  });
});

describe('child runs: a run found at a child id is adopted only if it is that child', () => {
  const parent = { run_id: 'parent', agent_name: 'ORCHESTRATOR', case_id: 'case-a', root_run_id: 'parent', correlation_id: 'parent', policy_versions: OLD, input_artifacts: [], parameters: {}, request_hash_sha256: 'h' };
  const child = childSpec(parent, 'intake', 'INTAKE_AGENT', [], {});
  const asRecorded = created({ run_id: child.run_id, agent_name: 'INTAKE_AGENT', parent_run_id: 'parent', root_run_id: 'parent', request_hash_sha256: child.request_hash_sha256 });

  it('matches the run this parent would start, and names every field a planted run differs in', () => {
    expect(childMismatch(asRecorded, child)).toBeUndefined();
    expect(childMismatch({ ...asRecorded, parent_run_id: undefined }, child)).toBe('parent_run_id');
    expect(childMismatch({ ...asRecorded, agent_name: 'MAPPING_AGENT', request_hash_sha256: 'other' }, child)).toBe('agent_name, request hash');
    expect(childMismatch({ ...asRecorded, run_kind: 'tool_gateway', case_id: 'case-b' }, child)).toBe('run kind, case_id');
  });
});
