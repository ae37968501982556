import { caseGranted, type CallerGrants } from '@runledger/governance';
import { replyIdentity } from '@runledger/messaging';

/** Why a start request (agents.run.start, agents.session.start) is refused before it becomes a run. */
export interface StartRefusal {
  code: 'REQUEST.UNATTRIBUTED' | 'CASE.NOT_GRANTED';
  reason: string;
}

/**
 * Who asks on agents.run.start and agents.session.start: only callers may publish them (deploy/nats/permissions.yaml
 * `call: [caller]`; decision starts its own sessions in process), but NATS does not tell a server who published, and
 * anyone may name any reply subject. The reply inbox is the only name such a request carries: it must be the inbox
 * of a caller of policy/callers.yaml (`_INBOX_<caller>.…`, where only that caller can subscribe), or nobody can say
 * who asks and the request is refused (no run). What this cannot prove: one caller naming another caller's inbox
 * (README "Limits"); the rl.caller.<identity>.… doors, whose subject NATS holds, have no such gap.
 */
export function startingCaller(grants: CallerGrants, reply: string | undefined): { caller: string } | StartRefusal {
  const identity = replyIdentity(reply);
  if (identity && Object.hasOwn(grants.callers, identity)) return { caller: identity };
  return {
    code: 'REQUEST.UNATTRIBUTED',
    reason: 'The reply subject names no caller that may send this request: reply to your own inbox (_INBOX_<identity>.…).',
  };
}

/** A caller starts runs and sessions only in the cases its role covers (as it ingests only into those); a session without a case uses none. */
export function startCaseRefusal(grants: CallerGrants, caller: string, caseId: string | undefined): StartRefusal | null {
  if (caseId === undefined) return null;
  const granted = caseGranted(grants, caller, caseId);
  return 'code' in granted ? { code: granted.code, reason: granted.reason } : null;
}
