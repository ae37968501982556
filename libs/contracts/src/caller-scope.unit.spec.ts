import { callerOfScopedUser, callerScopedUser, isCallerScopedUser } from './caller-scope';

describe('Caller scope keys', () => {
  it('Caller scope: a door\'s user is read back as its caller whatever its user_id holds, and two callers\' same user_id are two users', () => {
    for (const userId of ['alice', 'a.b.c', 'rl.caller.other.alice', ' ']) {
      expect(callerOfScopedUser(callerScopedUser('caller', userId))).toBe('caller');
    }
    expect(callerScopedUser('caller', 'alice')).not.toBe(callerScopedUser('partner', 'alice'));
    // An identity is one subject token (callerOfSubject: no dot), so the caller ends at the first dot.
    expect(callerOfScopedUser(callerScopedUser('partner', 'x.alice'))).toBe('partner');
  });

  it('Caller scope: a user_id of the agents.* domain is no door\'s', () => {
    for (const userId of ['alice', 'rl.callers.alice', 'caller.alice', 'rl.caller']) {
      expect(isCallerScopedUser(userId)).toBe(false);
      expect(callerOfScopedUser(userId)).toBeUndefined();
    }
  });
});
