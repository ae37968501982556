import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { authorize, loadPolicy, PolicyError, PolicyRegistry, type AuthzRequest } from '../index';

const POLICY_DIR = join(__dirname, '../../../../policy/contract-v1');
const lanesYaml = readFileSync(join(POLICY_DIR, 'lanes.yaml'), 'utf8');
const rolesYaml = readFileSync(join(POLICY_DIR, 'roles.yaml'), 'utf8');

// A newer lanes version that stops INTERVIEW_AGENT from running transcription.status.
const newerLanesYaml = lanesYaml
  .replace('version: lanes-2026.11.2', 'version: lanes-2026.12.1')
  .replace('        - transcription.status\n', '');

function problemsOf(fn: () => unknown): readonly string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof PolicyError) return err.problems;
    throw err;
  }
  throw new Error('expected a PolicyError');
}

const statusRequest: AuthzRequest = {
  agent_name: 'INTERVIEW_AGENT',
  lane: 'TOOL_INTERVIEW_CAPTURE',
  kind: 'tool',
  action: 'transcription.status',
  run_case_id: 'case-1',
  scope: { case_id: 'case-1', client_session_id: 's-1', run_id: 'run-1' },
};

test('§1 pinned policy_versions: a run pinned to the older version keeps being checked against it', () => {
  const registry = new PolicyRegistry();
  registry.add(loadPolicy({ lanesYaml, rolesYaml }));
  registry.add(loadPolicy({ lanesYaml: newerLanesYaml, rolesYaml }));

  const pinnedOld = registry.get({ lanes: 'lanes-2026.11.2', roles: 'roles-2026.11.2' })!;
  const pinnedNew = registry.get({ lanes: 'lanes-2026.12.1', roles: 'roles-2026.11.2' })!;
  expect(authorize(pinnedOld, statusRequest).decision).toBe('allow');
  expect(authorize(pinnedNew, statusRequest)).toMatchObject({
    decision: 'deny',
    code: 'LANE.ACTION_DENIED',
    policy_versions: { lanes: 'lanes-2026.12.1', roles: 'roles-2026.11.2' },
  });
  expect(registry.versions()).toEqual([
    { lanes: 'lanes-2026.11.2', roles: 'roles-2026.11.2' },
    { lanes: 'lanes-2026.12.1', roles: 'roles-2026.11.2' },
  ]);
});

test('§1 pinned policy_versions: an unknown version pair is not silently replaced by another', () => {
  const registry = new PolicyRegistry();
  registry.add(loadPolicy({ lanesYaml, rolesYaml }));
  expect(registry.get({ lanes: 'lanes-2026.12.1', roles: 'roles-2026.11.2' })).toBeUndefined();
});

test('§1 pinned policy_versions: re-adding the same version is a no-op; editing a file without a version bump is refused', () => {
  const registry = new PolicyRegistry();
  const first = registry.add(loadPolicy({ lanesYaml, rolesYaml }));
  expect(registry.add(loadPolicy({ lanesYaml, rolesYaml }))).toBe(first);

  const sneaky = lanesYaml.replace('        - transcription.status\n', '');
  const refusal = ['lanes version lanes-2026.11.2 is already registered with different content'];
  expect(problemsOf(() => registry.add(loadPolicy({ lanesYaml: sneaky, rolesYaml })))).toEqual(refusal);
  // Also when the edited version comes paired with a different roles version.
  const otherRoles = rolesYaml.replace('version: roles-2026.11.2', 'version: roles-2026.11.3');
  expect(problemsOf(() => registry.add(loadPolicy({ lanesYaml: sneaky, rolesYaml: otherRoles })))).toEqual(refusal);
  expect(registry.versions()).toHaveLength(1);
});
