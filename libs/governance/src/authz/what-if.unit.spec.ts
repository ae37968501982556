import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { authzInputsOf, loadPolicy, redecide, type AuthzRequest } from '../index';

const POLICY_DIR = join(__dirname, '../../../../policy/contract-v1');
const lanesYaml = readFileSync(join(POLICY_DIR, 'lanes.yaml'), 'utf8');
const rolesYaml = readFileSync(join(POLICY_DIR, 'roles.yaml'), 'utf8');
const shipped = loadPolicy({ lanesYaml, rolesYaml });
// The other policy: the task assistant may no longer delete tasks (one line less in the TASKS lane).
const stricter = loadPolicy({ lanesYaml: lanesYaml.replace(/\n\s+- delete_task\n/, '\n').replace(/^version: .*$/m, 'version: lanes-what-if'), rolesYaml });

const taskRequest = (action: string): AuthzRequest => ({
  agent_name: 'TASK_ASSISTANT', lane: 'TASKS', kind: 'tool', action, run_user_id: 'alice', scope: { run_id: 'r', user_id: 'alice', description: 'private text' },
});
const run = { run_kind: 'tool_gateway', agent_name: 'TASK_ASSISTANT', lane: 'TASKS', user_id: 'alice', parent_run_id: 'p' };

describe('Issue 11 what-if replay: recorded authorizations re-decided under another policy', () => {
  it('Issue 11 what-if: an allowed delete_task would be denied under the stricter policy; add_task is unchanged', () => {
    const del = redecide(stricter, { run_id: 'c1', run, decision: 'allow', action: 'delete_task', inputs: authzInputsOf(taskRequest('delete_task')) });
    expect(del).toMatchObject({ outcome: 'changed', from: 'allow', to: 'deny', code: 'LANE.ACTION_DENIED', reconstructed: false });
    expect(redecide(stricter, { run_id: 'c2', run, decision: 'allow', action: 'add_task', inputs: authzInputsOf(taskRequest('add_task')) })).toMatchObject({ outcome: 'same' });
  });

  it('Issue 11 what-if: a deny recorded under the stricter policy would be allowed under the shipped one (deny→allow)', () => {
    expect(redecide(shipped, { run_id: 'c3', run, decision: 'deny', code: 'LANE.ACTION_DENIED', action: 'delete_task', inputs: authzInputsOf(taskRequest('delete_task')) }))
      .toMatchObject({ outcome: 'changed', from: 'deny', to: 'allow' });
  });

  it('Issue 11 what-if: events recorded before inputs were kept are re-decided from the run (marked reconstructed)', () => {
    expect(redecide(stricter, { run_id: 'c4', run, decision: 'allow', lane: 'TASKS', action: 'delete_task' })).toMatchObject({ outcome: 'changed', to: 'deny', reconstructed: true });
  });

  it('Issue 11 what-if: agent starts and choke-point denials (claims, tickets) are skipped, never guessed', () => {
    expect(redecide(stricter, { run_id: 'a', run: { run_kind: 'agent', agent_name: 'TASK_ASSISTANT' }, decision: 'allow' })).toEqual({ outcome: 'skipped', why: 'agent start' });
    expect(redecide(stricter, { run_id: 'b', run, decision: 'deny', code: 'PROMOTION.TICKET_MISSING', action: 'x' })).toEqual({ outcome: 'skipped', why: 'not a policy decision' });
  });

  it('Issue 11 what-if: recorded inputs keep which scope fields were present, never their values beyond case and user', () => {
    const inputs = authzInputsOf(taskRequest('add_task'));
    expect(inputs.scope_fields).toEqual(['description', 'run_id', 'user_id']);
    expect(JSON.stringify(inputs)).not.toContain('private text');
  });
});
