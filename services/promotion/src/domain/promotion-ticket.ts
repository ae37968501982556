import type { PromotionRequest } from '@runledger/contracts';
import { approverOf, type CallerGrants } from '@runledger/governance';
import { deterministicUuid, truncateChars } from '@runledger/kernel';

/**
 * The §4.5 promotion ticket ("approval + scope"): a JSON artifact of kind `promotion_ticket`, named by the
 * promotion request's `promotion_ticket_id` (its artifact id), that an approver put in (checkApprover). Pure rules
 * only: the service reads the artifact through the verified path, and who put it in from the log, and asks here
 * whether it authorises this promotion.
 *
 * {
 *   "ticket_id": "…",                       the approval's own id: one ticket, one promotion
 *   "approved": true,
 *   "approved_by": "…",                     the approving person
 *   "approver_role": "ATTORNEY_ADMIN",      a role allowed to approve (TICKET_APPROVER_ROLES)
 *   "approved_at": "2026-05-01T10:00:00Z",
 *   "scope": { "targets": ["shared_playbooks"], "source_case_id": "case-…" },
 *   "expires_at": "2026-06-01T00:00:00Z"    optional
 * }
 */

export const TICKET_KIND = 'promotion_ticket';

/** The only role that approves promotions: the human principal of lane PROMOTE_SHARED_KNOWLEDGE (roles.yaml). */
export const TICKET_APPROVER_ROLES: readonly string[] = ['ATTORNEY_ADMIN'];

/** Where single use is recorded: one document per ticket_id, written when a promotion is about to write. */
export const TICKET_USES = 'promotion_tickets';

export type TicketCode = 'PROMOTION.TICKET_MISSING' | 'PROMOTION.TICKET_NOT_APPROVED' | 'PROMOTION.TICKET_SCOPE' | 'PROMOTION.TICKET_EXPIRED' | 'PROMOTION.TICKET_USED';
export type TicketRefusal = { ok: false; code: TicketCode; reason: string };

export interface PromotionTicket {
  ticket_id: string;
  /** Only the JSON value `true` approves: "true", 1 or "yes" do not. */
  approved: boolean;
  approved_by: string;
  approver_role: string;
  approved_at: string;
  targets: string[];
  source_case_id: string | null;
  expires_at: string | null;
}

/** What a promotion writes to TICKET_USES: enough to tell a retry of the same promotion from a second use. */
export interface TicketUse {
  ticket_id: string;
  ticket_artifact_id: string;
  promotion_id: string;
  promotion_run_id: string;
  target: PromotionRequest['target'];
  source_case_id: string | null;
}

const refuse = (code: TicketCode, reason: string): TicketRefusal => ({ ok: false, code, reason });
const clip = (s: string) => truncateChars(s, 64, { ellipsis: true });
const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');
const isTime = (v: string) => v !== '' && !Number.isNaN(Date.parse(v));

/** The ticket's use record id: keyed by ticket_id, not artifact id, so the same approval stored twice is still one ticket. */
export const ticketUseId = (ticketId: string) => deterministicUuid('promotion-ticket', ticketId);

/**
 * Parses a ticket artifact's bytes. Anything that is not a well-formed ticket is "missing": an artifact that
 * cannot be read as an approval approves nothing, and the reason says what was wrong.
 */
export function parseTicket(kind: string, bytes: Uint8Array): { ok: true; ticket: PromotionTicket } | TicketRefusal {
  const missing = (why: string) => refuse('PROMOTION.TICKET_MISSING', `The promotion ticket ${why}.`);
  if (kind !== TICKET_KIND) return missing(`artifact is of kind ${clip(kind)}, not ${TICKET_KIND}`);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return missing('is not JSON');
  }
  const t = json as Record<string, unknown> | null;
  if (!t || typeof t !== 'object' || Array.isArray(t)) return missing('is not a JSON object');
  const ticket_id = text(t.ticket_id);
  if (!ticket_id) return missing('has no ticket_id');
  const scope = (t.scope ?? {}) as Record<string, unknown>;
  const targets = Array.isArray(scope.targets) ? scope.targets.filter((x): x is string => typeof x === 'string') : [];
  const expires_at = t.expires_at === undefined || t.expires_at === null ? null : text(t.expires_at);
  // An expiry that cannot be read would otherwise be treated as "never expires": fail closed instead.
  if (expires_at !== null && !isTime(expires_at)) return missing(`${clip(ticket_id)} has an unreadable expires_at`);
  // Approval is judged by checkTicket (NOT_APPROVED), not here: a ticket awaiting approval is well formed.
  return {
    ok: true,
    ticket: {
      ticket_id, approved: t.approved === true, approved_by: text(t.approved_by), approver_role: text(t.approver_role), approved_at: text(t.approved_at),
      targets, source_case_id: text(scope.source_case_id) || null, expires_at,
    },
  };
}

/**
 * Whether an approved ticket covers this promotion, at the promotion run's creation time. The order makes the
 * reported code the most fundamental problem: an unapproved ticket is that, whatever its scope or expiry.
 */
export function checkTicket(
  ticket: PromotionTicket,
  promotion: { target: PromotionRequest['target']; source_case_id: string | null; at: string },
): { ok: true } | TicketRefusal {
  const id = clip(ticket.ticket_id);
  if (!ticket.approved) return refuse('PROMOTION.TICKET_NOT_APPROVED', `Promotion ticket ${id} is not approved.`);
  if (!TICKET_APPROVER_ROLES.includes(ticket.approver_role)) {
    return refuse('PROMOTION.TICKET_NOT_APPROVED', `Promotion ticket ${id} was not approved by an ${TICKET_APPROVER_ROLES.join(' or ')} (approver_role ${clip(ticket.approver_role) || 'missing'}).`);
  }
  if (!ticket.approved_by || !isTime(ticket.approved_at)) {
    return refuse('PROMOTION.TICKET_NOT_APPROVED', `Promotion ticket ${id} does not say who approved it and when (approved_by, approved_at).`);
  }
  if (!ticket.targets.includes(promotion.target)) {
    return refuse('PROMOTION.TICKET_SCOPE', `Promotion ticket ${id} does not cover ${promotion.target}.`);
  }
  // A ticket naming no source case approves only insight not derived from a case: fail closed, never "any case".
  if (ticket.source_case_id !== promotion.source_case_id) {
    return refuse('PROMOTION.TICKET_SCOPE', `Promotion ticket ${id} covers source case ${clip(ticket.source_case_id ?? 'none')}, not ${clip(promotion.source_case_id ?? 'none')}.`);
  }
  if (ticket.expires_at !== null && Date.parse(ticket.expires_at) <= Date.parse(promotion.at)) {
    return refuse('PROMOTION.TICKET_EXPIRED', `Promotion ticket ${id} expired at ${ticket.expires_at}.`);
  }
  return { ok: true };
}

/**
 * What the log says of who put a ticket artifact in, as app/promotion-tickets.ts reads it: the artifact's first
 * writer (its ArtifactStored data), and the ingest run that names, as its owner wrote it (undefined: no such run).
 */
export interface TicketProvenance {
  stored: Record<string, unknown> | undefined;
  ingest?: { run_kind: string | undefined; status: string; audited: ReadonlyArray<Record<string, unknown>> };
}

/**
 * §4.5 "approval": what the ticket says counts only if an approver put it in. Its first writer must be a caller's
 * ingest (an `ingest_run_id`; rl.artifacts.put records an agent and lane instead), and that completed `artifact_ingest`
 * run must have stored this artifact (ArtifactIngestAudited) for a caller whose recorded role approves promotion
 * tickets under the current grants (approverOf: acts_as ATTORNEY_ADMIN and the kind).
 */
export function checkApprover(ticketId: string, artifactId: string, log: TicketProvenance, grants: CallerGrants): { ok: true } | TicketRefusal {
  const notApproved = (why: string) => refuse('PROMOTION.TICKET_NOT_APPROVED', `Promotion ticket ${clip(ticketId)} was not put in by an approver: ${why}.`);
  const ingestRunId = text(log.stored?.ingest_run_id);
  if (!ingestRunId) {
    const agent = text(log.stored?.agent_name);
    return notApproved(`${agent ? `a ${clip(agent)} run` : 'no caller'} stored it (rl.artifacts.put), not an approver's rl.caller.<identity>.artifacts.ingest`);
  }
  const ingest = log.ingest;
  const audited = ingest?.run_kind === 'artifact_ingest' && ingest.status === 'completed'
    ? ingest.audited.find((a) => (a.artifact_ref as { artifact_id?: unknown } | undefined)?.artifact_id === artifactId)
    : undefined;
  const role = text(audited?.caller_role);
  if (!role) return notApproved(`no completed ingest run in the log stored it (${clip(ingestRunId)})`);
  const approver = approverOf(grants, role, TICKET_KIND);
  return approver.ok ? approver : notApproved(`${clip(text(audited?.requested_by) || 'a caller')} ingested it, and ${approver.reason}`);
}

/** Single use: a recorded use by another promotion run refuses; the same run (a retry, a resumed crash) may go on. */
export function checkUnused(ticketId: string, use: TicketUse | undefined, promotionRunId: string): { ok: true } | TicketRefusal {
  if (!use || use.promotion_run_id === promotionRunId) return { ok: true };
  return refuse('PROMOTION.TICKET_USED', `Promotion ticket ${clip(ticketId)} was already used by promotion ${clip(use.promotion_id)}.`);
}
