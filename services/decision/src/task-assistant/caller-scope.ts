import { callerScopedUser, isCallerScopedUser } from '@runledger/contracts';
import type { AgentDecision } from '@runledger/task-assistant';

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

/** The decision as its caller named the user: tool calls name the user_id the request sent, not the door's form of it. */
export function asSentUser(decision: AgentDecision, keyed: string, sent: string): AgentDecision {
  if (keyed === sent || !decision.tool_calls) return decision;
  return { ...decision, tool_calls: decision.tool_calls.map((c) => (c.parameters.user_id === keyed ? { ...c, parameters: { ...c.parameters, user_id: sent } } : c)) };
}
