/** Rule 1 bookkeeping: when a pending confirmation is live, and how one is created. */
import type { PendingAction, PendingConfirmation } from './types';

/**
 * How long a delete confirmation stays answerable. The contract has an expiry but no
 * duration; 5 minutes is ours (long enough to read the prompt, short enough that a
 * stray "yes" later does not delete anything).
 */
export const PENDING_CONFIRMATION_TTL_MS = 5 * 60 * 1000;

/** Whether `p` can still be answered at `now` (it expires at `expires_at`, inclusive). Unparseable times count as expired. */
export function isPendingLive(p: PendingConfirmation | null | undefined, now: string): boolean {
  if (!p) return false;
  const at = Date.parse(now);
  const expires = Date.parse(p.expires_at);
  if (Number.isNaN(at) || Number.isNaN(expires)) return false;
  return at < expires;
}

/** The pending confirmation to store for a REQUEST_CONFIRMATION decided at `now` (ISO). */
export function createPendingConfirmation(
  action: PendingAction,
  now: string,
  ttlMs: number = PENDING_CONFIRMATION_TTL_MS,
): PendingConfirmation {
  const created = Date.parse(now);
  if (Number.isNaN(created)) throw new RangeError('now must be an ISO 8601 datetime');
  return {
    action_type: action.action_type,
    task_id: action.task_id,
    task_description: action.task_description,
    created_at: new Date(created).toISOString(),
    expires_at: new Date(created + ttlMs).toISOString(),
  };
}
