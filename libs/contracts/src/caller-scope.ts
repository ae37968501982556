/**
 * A user of a caller's door as Runledger keys it. A request on rl.caller.<identity>.task-assistant.process names its
 * user_id in the caller's own name space: `rl.caller.<identity>.<user_id>` is the user everywhere after the door (its
 * run's user_id, conversation key, the owner of its tasks, its data key, `runledger erase --user`), so two callers'
 * `alice` are two users. An identity is one subject token (no `.`), so the form is read back unambiguously; the
 * agents.* subjects (one trust domain, keys as before) refuse a user_id of this form, so none can name a door's user.
 */
const SCOPED_USER = 'rl.caller.';

export function callerScopedUser(identity: string, userId: string): string {
  return `${SCOPED_USER}${identity}.${userId}`;
}

/** The user_id caller `identity` sent for its keyed user `userId` (callerScopedUser), or undefined when `userId` is no user of that caller. */
export function sentUserOf(identity: string, userId: string): string | undefined {
  const prefix = callerScopedUser(identity, '');
  return userId.startsWith(prefix) ? userId.slice(prefix.length) : undefined;
}

/** Whether a user_id is in some caller's name space (callerScopedUser). */
export function isCallerScopedUser(userId: string): boolean {
  return userId.startsWith(SCOPED_USER);
}

/** The caller whose user a scoped user_id is (undefined for a user of the agents.* domain). */
export function callerOfScopedUser(userId: string): string | undefined {
  if (!isCallerScopedUser(userId)) return undefined;
  const rest = userId.slice(SCOPED_USER.length);
  const dot = rest.indexOf('.');
  return dot > 0 ? rest.slice(0, dot) : undefined;
}
