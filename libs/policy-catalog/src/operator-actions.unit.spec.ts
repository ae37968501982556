import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventLog } from '@runledger/event-log';
import { decideOperatorAction, OPERATOR_ACTIONS, parseOperatorRoles } from '@runledger/governance';
import { loadOperatorRoles, OperatorActions } from './operator-actions';

describe('Issue 25 operators\' roles (policy/operators.yaml)', () => {
  const { policy } = loadOperatorRoles();

  it('Issue 25 the shipped policy loads: the operator identity may take every action', () => {
    expect(policy.identities.operator).toBe('operator-admin');
    for (const action of OPERATOR_ACTIONS) {
      expect(decideOperatorAction(policy, 'operator', action)).toEqual({ granted: true, role: 'operator-admin' });
    }
  });

  it('Issue 25 a read-only role and an identity without a role are refused, with the version in the reason', () => {
    const ro = { ...policy, identities: { operator: 'read-only' } };
    expect(decideOperatorAction(ro, 'operator', 'cancel')).toMatchObject({ granted: false, role: 'read-only', reason: expect.stringContaining(policy.version) });
    expect(decideOperatorAction(policy, 'caller', 'cancel')).toMatchObject({ granted: false, role: null });
    expect(decideOperatorAction(policy, undefined, 'fork')).toMatchObject({ granted: false, role: null });
  });

  it('Issue 25 a bad file names every problem: unknown action, undefined role, no version', () => {
    const parsed = parseOperatorRoles({ roles: { r: { actions: ['cancel', 'erase'] } }, identities: { operator: 'nobody' } });
    expect(parsed).toEqual({ ok: false, problems: [expect.stringContaining('version'), expect.stringContaining('erase'), expect.stringContaining('nobody')] });
  });
});

describe('Issue 25 review: operator identity and decisions', () => {
  const file = (text: string) => {
    const f = join(mkdtempSync(join(tmpdir(), 'rl-ops-')), 'operators.yaml');
    writeFileSync(f, text);
    return f;
  };

  it('Issue 25 the shipped policy grants resolve (rl.runs.resolve) to operator-admin', () => {
    expect(decideOperatorAction(loadOperatorRoles().policy, 'operator', 'resolve')).toEqual({ granted: true, role: 'operator-admin' });
  });

  it('Issue 25 a roles file that gives a role to an identity the permissions table does not let publish the operator subjects is refused at load', () => {
    const f = file('version: v-x\nroles:\n  admin:\n    actions: [cancel]\nidentities:\n  operator: admin\n  caller: admin\n');
    expect(() => loadOperatorRoles(f)).toThrow(/identities caller: only operator may publish the operator subjects/);
  });

  it('Issue 25 an action is taken as operator\'s whatever the request claims, and a retried request (same request id) records its decision under one command id', async () => {
    const appended: { subject: string; commandId: string; identity: unknown }[] = [];
    const log = { append: async (ref: { subject: string }, events: { data: { identity: unknown } }[], opts: { commandId: string }) => void appended.push({ subject: ref.subject, commandId: opts.commandId, identity: events[0]!.data.identity }) } as unknown as EventLog;
    const { policy, yaml } = loadOperatorRoles();
    const ops = new OperatorActions(log, policy, yaml);
    const ask = { action: 'cancel' as const, requested_by: 'ops-alice', target: { run_id: 'r1' } };
    await ops.authorize({ ...ask, request_id: 'req-1' });
    await ops.authorize({ ...ask, request_id: 'req-1' });
    await ops.authorize({ ...ask, request_id: 'req-2' });
    await ops.authorize({ ...ask, request_id: 'req-1', target: { run_id: 'r2' } });
    expect(appended.map((a) => a.identity)).toEqual(['operator', 'operator', 'operator', 'operator']);
    expect(appended[0]!.subject).toBe('rl.log.operator.operator');
    expect(appended[1]!.commandId).toBe(appended[0]!.commandId);
    expect(new Set(appended.map((a) => a.commandId)).size).toBe(3);
  });
});
