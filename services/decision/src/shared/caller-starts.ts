import { caseGranted, type CallerGrants } from '@runledger/governance';

/** Why a start request (rl.caller.<caller>.runs.start, rl.caller.<caller>.sessions.start) is refused before it becomes a run. */
export interface StartRefusal {
  code: 'REQUEST.UNATTRIBUTED' | 'CASE.NOT_GRANTED';
  reason: string;
}

/**
 * Whether `caller`, the identity of the door a start came on (callerOf: NATS lets each caller publish only on its own
 * rl.caller.<identity>.…), may start runs and sessions at all: only a caller of policy/callers.yaml may, so an identity
 * with no role there (one the permissions table lets publish on a door of its own by mistake) starts nothing.
 */
export function callerStartRefusal(grants: CallerGrants, caller: string): StartRefusal | null {
  if (Object.hasOwn(grants.callers, caller)) return null;
  return { code: 'REQUEST.UNATTRIBUTED', reason: `${caller} has no role in the caller grants (policy/callers.yaml): it may start no runs or sessions.` };
}

/** A caller starts runs and sessions only in the cases its role covers (as it ingests only into those); a session without a case uses none. */
export function startCaseRefusal(grants: CallerGrants, caller: string, caseId: string | undefined): StartRefusal | null {
  if (caseId === undefined) return null;
  const granted = caseGranted(grants, caller, caseId);
  return 'code' in granted ? { code: granted.code, reason: granted.reason } : null;
}
