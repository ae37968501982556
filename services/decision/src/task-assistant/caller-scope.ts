import { callerScopedUser, isCallerScopedUser, sentUserOf } from '@runledger/contracts';

/**
 * A task-assistant request in its asker's name space: on a caller's door (`caller`, rl.caller.<identity>.…) its
 * user_id becomes the caller's user (callerScopedUser), so the run, the conversation (user, conversation_id), the
 * tasks (owner) and the data key are that caller's alone; on agents.* (`caller` absent) it stays as sent.
 */
export function inCallerScope<T>(request: T, caller: string | undefined): T {
  if (caller === undefined || typeof request !== 'object' || request === null) return request;
  const userId = (request as { user_id?: unknown }).user_id;
  return typeof userId === 'string' && userId.trim() !== '' ? { ...request, user_id: callerScopedUser(caller, userId) } : request;
}

/** Why a request may not name a user as its own: it is a caller door's user (only that door reaches its users). */
export const DOOR_USER_REFUSAL = 'user_id names a user of a caller door (rl.caller.<identity>.…): only that door reaches it';

/** Why an agents.* request may not name this user: it is a door's (only that caller's door reaches its users). */
export function doorUserProblem(userId: string, caller: string | undefined): string | null {
  return caller === undefined && isCallerScopedUser(userId) ? DOOR_USER_REFUSAL : null;
}

/**
 * `value` as a door's caller named its user: every string that is `userId`, when `userId` is this caller's keyed user
 * (callerScopedUser), reads as the user_id the caller sent (README "A caller's own door": the reply, runs.get and
 * runs.events name the user as the caller sent it; only operators see the keyed form). Any other value, and anything
 * read on agents.* (`caller` undefined), is unchanged.
 */
export function forCaller<T>(value: T, userId: string | undefined, caller: string | undefined): T {
  const sent = userId === undefined || caller === undefined ? undefined : sentUserOf(caller, userId);
  if (sent === undefined) return value;
  const walk = (v: unknown): unknown => {
    if (v === userId) return sent;
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}
