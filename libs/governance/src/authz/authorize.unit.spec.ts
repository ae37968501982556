import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { authorize, loadPolicy, type AuthzRequest, type LaneKind } from '../index';

const POLICY_DIR = join(__dirname, '../../../../policy/contract-v1');
const lanesYaml = readFileSync(join(POLICY_DIR, 'lanes.yaml'), 'utf8');
const rolesYaml = readFileSync(join(POLICY_DIR, 'roles.yaml'), 'utf8');
const policy = loadPolicy({ lanesYaml, rolesYaml });

// The contract's own words (§4, §5), not read from lanes.yaml: the policy must match them.
const CONTRACT_ACTIONS: Array<[agent: string, lane: string, kind: LaneKind, action: string]> = [
  ['INTERVIEW_AGENT', 'TOOL_INTERVIEW_CAPTURE', 'tool', 'dictation.start'],
  ['INTERVIEW_AGENT', 'TOOL_INTERVIEW_CAPTURE', 'tool', 'dictation.stop'],
  ['INTERVIEW_AGENT', 'TOOL_INTERVIEW_CAPTURE', 'tool', 'transcription.run'],
  ['INTERVIEW_AGENT', 'TOOL_INTERVIEW_CAPTURE', 'tool', 'transcription.status'],
  ['INTERVIEW_AGENT', 'TOOL_INTERVIEW_CAPTURE', 'tool', 'interview.prompt.next'],
  ['INTERVIEW_AGENT', 'WRITE_INTAKE_ARTIFACTS', 'db_write', 'append:transcripts'],
  ['INTERVIEW_AGENT', 'WRITE_INTAKE_ARTIFACTS', 'db_write', 'append:interview_notes'],
  ['INTAKE_AGENT', 'WRITE_INTAKE_ARTIFACTS', 'db_write', 'append:interview_notes'],
  ['INTAKE_AGENT', 'WRITE_INTAKE_ARTIFACTS', 'db_write', 'upsert:entities'],
  ['MAPPING_AGENT', 'WRITE_MAPPING_OUTPUTS', 'db_write', 'append:facts'],
  ['MAPPING_AGENT', 'WRITE_MAPPING_OUTPUTS', 'db_write', 'append:evidence_map'],
  ['MAPPING_AGENT', 'WRITE_MAPPING_OUTPUTS', 'db_write', 'append:coa_map'],
  ['GOVERNANCE_AGENT', 'PROMOTE_SHARED_KNOWLEDGE', 'promotion', 'append:shared_playbooks'],
  ['ATTORNEY_ADMIN', 'PROMOTE_SHARED_KNOWLEDGE', 'promotion', 'append:shared_heuristics'],
  ['EXPORT_AGENT', 'EXPORT', 'export', 'authorize'],
  ['EXPORT_AGENT', 'EXPORT', 'export', 'assemble'],
  ['EXPORT_AGENT', 'EXPORT', 'export', 'finalize'],
  ['EXPORT_AGENT', 'EXPORT', 'db_write', 'append:export_bundles'],
  ['TASK_ASSISTANT', 'TASKS', 'tool', 'add_task'],
  ['TASK_ASSISTANT', 'TASKS', 'tool', 'list_tasks'],
  ['TASK_ASSISTANT', 'TASKS', 'tool', 'update_task'],
  ['TASK_ASSISTANT', 'TASKS', 'tool', 'complete_task'],
  ['TASK_ASSISTANT', 'TASKS', 'tool', 'delete_task'],
  ['TASK_ASSISTANT', 'TASKS', 'db_write', 'update:tasks'],
];
const MATRIX: Record<string, string[]> = {
  TOOL_INTERVIEW_CAPTURE: ['INTERVIEW_AGENT'],
  WRITE_INTAKE_ARTIFACTS: ['INTERVIEW_AGENT', 'INTAKE_AGENT'],
  WRITE_MAPPING_OUTPUTS: ['MAPPING_AGENT'],
  PROMOTE_SHARED_KNOWLEDGE: ['GOVERNANCE_AGENT', 'ATTORNEY_ADMIN'],
  EXPORT: ['EXPORT_AGENT'],
  TASKS: ['TASK_ASSISTANT'],
};
const AGENTS = ['ORCHESTRATOR', 'INTAKE_AGENT', 'INTERVIEW_AGENT', 'MAPPING_AGENT', 'GOVERNANCE_AGENT', 'EXPORT_AGENT', 'ATTORNEY_ADMIN', 'TASK_ASSISTANT'];
const FULL_SCOPE = { case_id: 'case-1', run_id: 'run-1', client_session_id: 'sess-1', coa_version: 'coa-3', promotion_ticket_id: 'pt-1', user_id: 'user-1' };

/** A request that satisfies every other check, so only what the test varies decides. */
function request(agent: string, lane: string, overrides: Partial<AuthzRequest> = {}): AuthzRequest {
  const [, , kind, action] = CONTRACT_ACTIONS.find(([, l]) => l === lane)!;
  const caseLess = lane === 'PROMOTE_SHARED_KNOWLEDGE' || lane === 'TASKS';
  const scope = caseLess ? { ...FULL_SCOPE, case_id: undefined } : FULL_SCOPE;
  return { agent_name: agent, lane, kind, action, run_case_id: caseLess ? undefined : 'case-1', run_user_id: 'user-1', scope, ...overrides };
}

describe('§5 lane-to-agent matrix', () => {
  test.each(CONTRACT_ACTIONS)('§5 matrix: %s may %s/%s %s', (agent, lane, kind, action) => {
    expect(authorize(policy, request(agent, lane, { kind, action })).decision).toBe('allow');
  });

  const pairs = AGENTS.flatMap((agent) => Object.keys(MATRIX).map((lane) => [agent, lane, MATRIX[lane].includes(agent)] as const));
  test.each(pairs)('§5 matrix: %s on lane %s → allowed %s', (agent, lane, allowed) => {
    const decision = authorize(policy, request(agent, lane));
    expect(decision.decision).toBe(allowed ? 'allow' : 'deny');
    if (!allowed) expect(decision).toMatchObject({ code: 'LANE.CALLER_DENIED' });
  });

  test('§4.1 orchestrator: has no lane at all, so every privileged action is denied', () => {
    for (const lane of Object.keys(MATRIX)) {
      expect(authorize(policy, request('ORCHESTRATOR', lane))).toMatchObject({ decision: 'deny', code: 'LANE.CALLER_DENIED' });
    }
  });
});

describe('§5 deny outside the matrix', () => {
  test('§5 matrix: an unknown lane or agent is denied with its own code', () => {
    expect(authorize(policy, request('INTERVIEW_AGENT', 'TOOL_INTERVIEW_CAPTURE', { lane: 'SHELL' }))).toMatchObject({
      decision: 'deny', code: 'LANE.UNKNOWN', reason: 'There is no lane named SHELL.',
    });
    expect(authorize(policy, request('INTERVIEW_AGENT', 'TOOL_INTERVIEW_CAPTURE', { agent_name: 'ROGUE_AGENT' }))).toMatchObject({
      decision: 'deny', code: 'ROLE.UNKNOWN',
    });
  });

  test('§4.3 tool calls: a db_write through the tool lane is a kind mismatch', () => {
    const decision = authorize(policy, request('INTERVIEW_AGENT', 'TOOL_INTERVIEW_CAPTURE', { kind: 'db_write', action: 'append:transcripts' }));
    expect(decision).toMatchObject({ decision: 'deny', code: 'LANE.KIND_MISMATCH' });
  });

  test.each([
    ['INTAKE_AGENT', 'WRITE_INTAKE_ARTIFACTS', 'append:facts'],
    ['INTERVIEW_AGENT', 'WRITE_INTAKE_ARTIFACTS', 'upsert:transcripts'],
    ['MAPPING_AGENT', 'WRITE_MAPPING_OUTPUTS', 'update:facts'],
    ['GOVERNANCE_AGENT', 'PROMOTE_SHARED_KNOWLEDGE', 'append:transcripts'],
    ['TASK_ASSISTANT', 'TASKS', 'delete:tasks'],
  ])('§5 matrix: %s on %s may not %s (collection and operation must both be listed)', (agent, lane, action) => {
    const kind = lane === 'PROMOTE_SHARED_KNOWLEDGE' ? 'promotion' : 'db_write';
    expect(authorize(policy, request(agent, lane, { kind, action }))).toMatchObject({ decision: 'deny', code: 'LANE.ACTION_DENIED' });
  });

  test('§4.3 tools: an unlisted tool is denied even to the lane\'s caller', () => {
    expect(authorize(policy, request('INTERVIEW_AGENT', 'TOOL_INTERVIEW_CAPTURE', { action: 'web.search' }))).toMatchObject({
      decision: 'deny', code: 'LANE.ACTION_DENIED', reason: 'Lane TOOL_INTERVIEW_CAPTURE does not allow the tool action web.search.',
    });
  });
});

describe('§4 required scope', () => {
  test('§4.4 required scope: MAPPING_AGENT writes need coa_version; missing and blank fields are listed', () => {
    const decision = authorize(
      policy,
      request('MAPPING_AGENT', 'WRITE_MAPPING_OUTPUTS', { scope: { case_id: 'case-1', run_id: '  ', coa_version: undefined } }),
    );
    expect(decision).toMatchObject({ decision: 'deny', code: 'SCOPE.MISSING', reason: 'Missing required scope: run_id, coa_version.' });
  });

  test('§4.3 required scope: INTERVIEW_AGENT tool calls need case_id, client_session_id and run_id', () => {
    const decision = authorize(policy, request('INTERVIEW_AGENT', 'TOOL_INTERVIEW_CAPTURE', { scope: { case_id: 'case-1', run_id: 'run-1' } }));
    expect(decision).toMatchObject({ decision: 'deny', code: 'SCOPE.MISSING', reason: 'Missing required scope: client_session_id.' });
  });
});

describe('case isolation (non-negotiable; §4.3 cross_case_lookup)', () => {
  test('§5 case isolation: touching another case through target_case_id or scope.case_id is denied', () => {
    const viaTarget = request('INTERVIEW_AGENT', 'WRITE_INTAKE_ARTIFACTS', { target_case_id: 'case-2' });
    const viaScope = request('INTERVIEW_AGENT', 'WRITE_INTAKE_ARTIFACTS', { scope: { ...FULL_SCOPE, case_id: 'case-2' } });
    for (const r of [viaTarget, viaScope]) {
      expect(authorize(policy, r)).toMatchObject({ decision: 'deny', code: 'CASE.CROSS_CASE_DENIED', reason: 'Cross-case access is not permitted in this lane.' });
    }
  });

  test('§5 case isolation: a case lane refuses a run that is not pinned to a case', () => {
    expect(authorize(policy, request('MAPPING_AGENT', 'WRITE_MAPPING_OUTPUTS', { run_case_id: undefined }))).toMatchObject({
      decision: 'deny', code: 'CASE.RUN_UNSCOPED',
    });
  });

  test('§4.5 promotion: a case-pinned governance run may not name another case as its source', () => {
    const sameCase = request('GOVERNANCE_AGENT', 'PROMOTE_SHARED_KNOWLEDGE', { run_case_id: 'case-1', scope: { ...FULL_SCOPE, case_id: 'case-1' } });
    const otherCase = request('GOVERNANCE_AGENT', 'PROMOTE_SHARED_KNOWLEDGE', { run_case_id: 'case-1', scope: { ...FULL_SCOPE, case_id: 'case-9' } });
    expect(authorize(policy, sameCase).decision).toBe('allow');
    expect(authorize(policy, otherCase)).toMatchObject({ decision: 'deny', code: 'CASE.CROSS_CASE_DENIED' });
  });

  test('§5 case isolation: cross-case access is allowed only where a lane explicitly permits it', () => {
    const permissive = loadPolicy({
      lanesYaml: lanesYaml
        .replace('version: lanes-2026.11.2', 'version: lanes-test.1')
        .replace(
          /(- name: WRITE_MAPPING_OUTPUTS[\s\S]*?)allows_cross_case: false\n    prohibitions: \[cross_case_lookup, shared_knowledge_write\]/,
          '$1allows_cross_case: true\n    prohibitions: [shared_knowledge_write]',
        ),
      rolesYaml: rolesYaml.replace(
        /(- name: MAPPING_AGENT[\s\S]*?)prohibitions: \[cross_case_lookup, external_export, shared_knowledge_write\]/,
        '$1prohibitions: [external_export, shared_knowledge_write]',
      ),
    });
    const cross = request('MAPPING_AGENT', 'WRITE_MAPPING_OUTPUTS', { target_case_id: 'case-2' });
    expect(authorize(permissive, cross).decision).toBe('allow');
    expect(authorize(policy, cross).decision).toBe('deny');
    // Other lanes of the permissive policy stay isolated.
    expect(authorize(permissive, request('INTAKE_AGENT', 'WRITE_INTAKE_ARTIFACTS', { target_case_id: 'case-2' })).decision).toBe('deny');
  });

  test('§5 TASKS lane: the task assistant only reaches the signed-in user\'s own tasks', () => {
    const own = request('TASK_ASSISTANT', 'TASKS');
    const other = request('TASK_ASSISTANT', 'TASKS', { scope: { ...FULL_SCOPE, case_id: undefined, user_id: 'user-2' } });
    const anonymous = request('TASK_ASSISTANT', 'TASKS', { run_user_id: undefined });
    expect(authorize(policy, own).decision).toBe('allow');
    expect(authorize(policy, other)).toMatchObject({ decision: 'deny', code: 'USER.CROSS_USER_DENIED' });
    expect(authorize(policy, anonymous)).toMatchObject({ decision: 'deny', code: 'USER.CROSS_USER_DENIED' });
  });
});

test('§2.2 error message bounded: a deny reason never echoes unbounded or unsafe caller input', () => {
  const decision = authorize(policy, request('INTERVIEW_AGENT', 'TOOL_INTERVIEW_CAPTURE', { lane: `<script>${'X'.repeat(5000)}` }));
  expect(decision.decision).toBe('deny');
  if (decision.decision === 'deny') {
    expect(decision.reason.length).toBeLessThanOrEqual(120);
    expect(decision.reason).not.toMatch(/[<>]/);
  }
});

test('§1 authz_decision: every decision names the policy versions that made it', () => {
  expect(authorize(policy, request('MAPPING_AGENT', 'WRITE_MAPPING_OUTPUTS')).policy_versions).toEqual(policy.versions);
  expect(authorize(policy, request('MAPPING_AGENT', 'TASKS')).policy_versions).toEqual(policy.versions);
});
