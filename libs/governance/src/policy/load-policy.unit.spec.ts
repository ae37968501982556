import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { AppError } from '@runledger/kernel';
import { getLane, getRole, laneKinds, loadPolicy, PolicyError } from '../index';

const POLICY_DIR = join(__dirname, '../../../../policy/contract-v1');
const lanesYaml = readFileSync(join(POLICY_DIR, 'lanes.yaml'), 'utf8');
const rolesYaml = readFileSync(join(POLICY_DIR, 'roles.yaml'), 'utf8');

// Loose views of the parsed files, for tests that break them on purpose.
interface LaneDoc { name: string; actions: Record<string, string[]>; allowed_callers: string[]; required_scope: string[]; allows_cross_case?: boolean; prohibitions?: string[] }
interface RoleDoc { name: string; lanes: string[]; prohibitions?: string[] }
interface PolicyDoc { version?: string; contract_version: string; lanes: LaneDoc[]; roles: RoleDoc[] }
function edited(text: string, edit: (doc: PolicyDoc) => void): string {
  const doc = parse(text) as PolicyDoc;
  edit(doc);
  return stringify(doc);
}
function problemsOf(sources: { lanesYaml: string; rolesYaml: string }): readonly string[] {
  try {
    loadPolicy(sources);
  } catch (err) {
    if (err instanceof PolicyError) return err.problems;
    throw err;
  }
  throw new Error('expected a PolicyError');
}
const lane = (doc: PolicyDoc, name: string) => doc.lanes.find((l) => l.name === name)!;
const role = (doc: PolicyDoc, name: string) => doc.roles.find((r) => r.name === name)!;

describe('policy files (contract v1 lanes.yaml / roles.yaml)', () => {
  const policy = loadPolicy({ lanesYaml, rolesYaml });

  test('§1 policy_versions: the shipped files load with both versions and contract v1', () => {
    expect(policy.versions).toEqual({ lanes: 'lanes-2026.11.2', roles: 'roles-2026.11.2' });
    expect(policy.contract_version).toBe('v1');
    expect(policy.digests.lanes).toMatch(/^[0-9a-f]{64}$/);
  });

  test('§5 matrix: lanes name exactly the callers, kinds and actions of the contract', () => {
    const summary = Object.values(policy.lanes).map((l) => ({ lane: l.name, callers: l.allowed_callers, kinds: laneKinds(l) }));
    expect(summary).toEqual([
      { lane: 'TOOL_INTERVIEW_CAPTURE', callers: ['INTERVIEW_AGENT'], kinds: ['tool'] },
      { lane: 'WRITE_INTAKE_ARTIFACTS', callers: ['INTERVIEW_AGENT', 'INTAKE_AGENT'], kinds: ['db_write'] },
      { lane: 'WRITE_MAPPING_OUTPUTS', callers: ['MAPPING_AGENT'], kinds: ['db_write'] },
      { lane: 'PROMOTE_SHARED_KNOWLEDGE', callers: ['GOVERNANCE_AGENT', 'ATTORNEY_ADMIN'], kinds: ['promotion'] },
      { lane: 'EXPORT', callers: ['EXPORT_AGENT'], kinds: ['db_write', 'export'] },
      { lane: 'TASKS', callers: ['TASK_ASSISTANT'], kinds: ['tool', 'db_write'] },
      { lane: 'CAMPAIGN_OUTREACH', callers: ['CAMPAIGN_AGENT'], kinds: ['tool', 'db_write'] },
    ]);
    expect(getLane(policy, 'WRITE_MAPPING_OUTPUTS')!.required_scope).toContain('coa_version');
    expect(getLane(policy, 'PROMOTE_SHARED_KNOWLEDGE')!.prohibitions).toEqual(['raw_case_text', 'client_identity', 'privileged_notes']);
    expect(getLane(policy, 'TASKS')!.isolation).toBe('user');
  });

  test('§4.1 orchestrator: uses no lane; every agent carries its contract prohibitions', () => {
    expect(getRole(policy, 'ORCHESTRATOR')!.lanes).toEqual([]);
    expect(getRole(policy, 'INTERVIEW_AGENT')!.prohibitions).toEqual(['cross_case_lookup', 'external_export', 'shared_knowledge_write']);
    expect(getRole(policy, 'MAPPING_AGENT')!.prohibitions).toEqual(expect.arrayContaining(['cross_case_lookup', 'shared_knowledge_write']));
    expect(Object.keys(policy.roles)).toEqual([
      'ORCHESTRATOR', 'INTAKE_AGENT', 'INTERVIEW_AGENT', 'MAPPING_AGENT', 'GOVERNANCE_AGENT', 'EXPORT_AGENT', 'ATTORNEY_ADMIN', 'TASK_ASSISTANT', 'CAMPAIGN_AGENT', 'CAMPAIGN_OPERATOR',
    ]);
  });

  test('§1 pinned policy: the loaded set is deeply frozen, so a pinned version cannot drift in memory', () => {
    const tools = getLane(policy, 'TASKS')!.actions.tool as string[];
    expect(() => tools.push('drop_database')).toThrow(TypeError);
    expect(() => Object.assign(policy.lanes, { EVIL: {} })).toThrow(TypeError);
    expect(getLane(policy, '__proto__')).toBeUndefined();
  });

  test('§5 defaults: allows_cross_case defaults to false and prohibitions to none', () => {
    const lanes = edited(lanesYaml, (d) => {
      delete lane(d, 'TASKS').allows_cross_case;
      delete lane(d, 'TASKS').prohibitions;
    });
    const loaded = loadPolicy({ lanesYaml: lanes, rolesYaml });
    expect(getLane(loaded, 'TASKS')).toMatchObject({ allows_cross_case: false, prohibitions: [] });
  });
});

describe('§5 policy validation: PolicyError lists every problem', () => {
  test('§5 policy validation: missing version, unknown kind, unknown lane and duplicate lane are all reported at once', () => {
    const lanes = edited(lanesYaml, (d) => {
      delete d.version;
      lane(d, 'TASKS').actions.shell = ['rm'];
    });
    const roles = edited(rolesYaml, (d) => {
      role(d, 'MAPPING_AGENT').lanes.push('WRITE_EVERYTHING');
    });
    const problems = problemsOf({ lanesYaml: lanes, rolesYaml: roles });
    expect(problems).toEqual(
      expect.arrayContaining([
        'lanes.yaml: /: missing required property "version"',
        'lanes.yaml: lane TASKS: unknown kind "shell" (allowed: tool, db_write, promotion, export)',
      ]),
    );
    // Cross-file rules wait for both files to pass their schema, so fix lanes and break it differently.
    const duplicated = edited(lanesYaml, (d) => d.lanes.push({ ...lane(d, 'EXPORT') }));
    expect(problemsOf({ lanesYaml: duplicated, rolesYaml: roles })).toEqual([
      'lanes.yaml: duplicate lane "EXPORT"',
      'roles.yaml: role MAPPING_AGENT: unknown lane "WRITE_EVERYTHING"',
    ]);
  });

  test('§5 policy validation: a lane and a role must agree on access, so neither file alone widens it', () => {
    const lanes = edited(lanesYaml, (d) => lane(d, 'WRITE_MAPPING_OUTPUTS').allowed_callers.push('INTAKE_AGENT', 'GHOST_AGENT'));
    const roles = edited(rolesYaml, (d) => role(d, 'EXPORT_AGENT').lanes.push('TASKS'));
    expect(problemsOf({ lanesYaml: lanes, rolesYaml: roles })).toEqual([
      'roles.yaml: role EXPORT_AGENT: lists lane TASKS, whose allowed_callers do not include it',
      'lanes.yaml: lane WRITE_MAPPING_OUTPUTS: allows caller INTAKE_AGENT, whose role does not list this lane',
      'lanes.yaml: lane WRITE_MAPPING_OUTPUTS: unknown caller "GHOST_AGENT"',
    ]);
  });

  test('§4.3 prohibitions: a policy letting a role do what it is prohibited from is refused', () => {
    const lanes = edited(lanesYaml, (d) => {
      lane(d, 'WRITE_INTAKE_ARTIFACTS').actions.db_write.push('append:shared_playbooks');
      lane(d, 'WRITE_INTAKE_ARTIFACTS').prohibitions = [];
      lane(d, 'WRITE_MAPPING_OUTPUTS').allows_cross_case = true;
      lane(d, 'WRITE_MAPPING_OUTPUTS').prohibitions = [];
    });
    expect(problemsOf({ lanesYaml: lanes, rolesYaml })).toEqual([
      'roles.yaml: role INTAKE_AGENT: prohibition shared_knowledge_write contradicts lane WRITE_INTAKE_ARTIFACTS',
      'roles.yaml: role INTERVIEW_AGENT: prohibition shared_knowledge_write contradicts lane WRITE_INTAKE_ARTIFACTS',
      'roles.yaml: role MAPPING_AGENT: prohibition cross_case_lookup contradicts lane WRITE_MAPPING_OUTPUTS (allows_cross_case)',
    ]);
  });

  test('§5 case isolation: a case lane must require case_id and cannot both allow and prohibit cross-case', () => {
    const lanes = edited(lanesYaml, (d) => {
      lane(d, 'TOOL_INTERVIEW_CAPTURE').required_scope = ['client_session_id', 'run_id'];
      lane(d, 'TOOL_INTERVIEW_CAPTURE').allows_cross_case = true;
    });
    const problems = problemsOf({ lanesYaml: lanes, rolesYaml });
    expect(problems).toContain('lanes.yaml: lane TOOL_INTERVIEW_CAPTURE: isolation "case" needs case_id in required_scope');
    expect(problems).toContain('lanes.yaml: lane TOOL_INTERVIEW_CAPTURE: allows_cross_case contradicts its prohibition cross_case_lookup');
  });

  test('§5 policy validation: YAML syntax errors and empty files are reported per file, without a stack', () => {
    const err = (() => {
      try {
        loadPolicy({ lanesYaml: 'version: [unclosed', rolesYaml: '' });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).toWire()).toMatchObject({ code: 'POLICY.INVALID', retryable: false });
    const problems = (err as PolicyError).problems;
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^lanes\.yaml: YAML error: /);
    expect(problems[1]).toBe('roles.yaml: the file is empty');
  });

  test('§5 policy validation: duplicate YAML keys are refused rather than silently overwritten', () => {
    const lanes = lanesYaml.replace('version: lanes-2026.11.2', 'version: lanes-2026.11.2\nversion: lanes-2026.11.3');
    expect(problemsOf({ lanesYaml: lanes, rolesYaml })[0]).toMatch(/^lanes\.yaml: YAML error: .*unique/i);
  });

  test('§1 contract_version: a policy for another contract version is refused', () => {
    const roles = edited(rolesYaml, (d) => (d.contract_version = 'v2'));
    expect(problemsOf({ lanesYaml, rolesYaml: roles })).toEqual(['roles.yaml: /contract_version: must be "v1"']);
  });
});
