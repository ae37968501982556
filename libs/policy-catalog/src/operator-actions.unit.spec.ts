import { decideOperatorAction, parseOperatorRoles } from '@runledger/governance';
import { loadOperatorRoles } from './operator-actions';

describe('Issue 25 operators\' roles (policy/operators.yaml)', () => {
  const { policy } = loadOperatorRoles();

  it('Issue 25 the shipped policy loads: the operator identity may take every action', () => {
    expect(policy.identities.operator).toBe('operator-admin');
    for (const action of ['cancel', 'fork', 'deadletter_retry', 'approve', 'reject', 'answer'] as const) {
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
