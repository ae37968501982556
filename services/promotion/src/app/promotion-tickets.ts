import { Inject, Injectable } from '@nestjs/common';
import type { ArtifactRef, GovernanceScope } from '@runledger/contracts';
import type { DocumentStore } from '@runledger/document-store';
import { aggregateRef } from '@runledger/event-log';
import { approverOf, type CallerGrants } from '@runledger/governance';
import { DOCUMENT_STORE } from '@runledger/messaging';
import { CALLER_GRANTS } from '@runledger/policy-catalog';
import { loadUnlessForged, RunRepository } from '@runledger/runs';
import { ArtifactClient } from '@runledger/service-clients';
import { checkTicket, checkUnused, parseTicket, PromotionTicket, TicketCode, TicketRefusal, TICKET_KIND, TICKET_USES, TicketUse, ticketUseId } from '../domain/promotion-ticket';

export type TicketOutcome =
  | { ok: true; ticket: PromotionTicket; ref: ArtifactRef }
  /** `ref` is the ticket as read, when it could be read: the denied run still records what it judged. */
  | { ok: false; code: TicketCode; reason: string; ref?: ArtifactRef };

/** What rl.artifacts.get accepts as an artifact id; anything else cannot name a ticket artifact. */
const ARTIFACT_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;

/** What an artifact's log subject and an ingest run record, as this check reads them. */
interface StoredBy { ingest_run_id?: unknown; requested_by?: unknown; agent_name?: unknown }
interface IngestAudited { artifact_ref?: { artifact_id?: unknown }; caller_role?: unknown; requested_by?: unknown }

/**
 * The promotion ticket as part of authorising a promotion run: read through rl.artifacts.get (hash-verified,
 * case isolation applied, as the promotion run scoped to the source case, like the screen's sources), its approver
 * checked against the log (approvedBy), judged by domain/promotion-ticket.ts, and checked against the
 * `promotion_tickets` use records for single use.
 */
@Injectable()
export class PromotionTickets {
  constructor(
    private readonly artifacts: ArtifactClient,
    private readonly runs: RunRepository,
    @Inject(CALLER_GRANTS) private readonly grants: CallerGrants,
    @Inject(DOCUMENT_STORE) private readonly store: DocumentStore,
  ) {}

  /**
   * `recordedAllow`: the promotion run already recorded its allow (a resumed run). Its approver was judged then; the
   * log's decision stands (as the run decider keeps it), so a ticket of an earlier release is not judged again.
   */
  async authorise(
    ticketArtifactId: string,
    promotion: { target: TicketUse['target']; source_case_id: string | null; promotion_run_id: string; at: string; recordedAllow: boolean },
    asRun: GovernanceScope,
  ): Promise<TicketOutcome> {
    if (!ARTIFACT_ID.test(ticketArtifactId)) {
      return { ok: false, code: 'PROMOTION.TICKET_MISSING', reason: 'promotion_ticket_id must be the id of a promotion_ticket artifact.' };
    }
    const scope: GovernanceScope = { ...asRun, ...(promotion.source_case_id ? { case_id: promotion.source_case_id } : {}) };
    const fetched = await this.artifacts.fetchAll([ticketArtifactId], scope);
    // Not found, another case's, or bytes that no longer match their hash: there is no ticket to rely on.
    if (!fetched.ok) return { ok: false, code: 'PROMOTION.TICKET_MISSING', reason: `The promotion ticket could not be read (${fetched.code}): ${fetched.reason}` };
    const { ref, bytes } = fetched.artifacts[0];
    const parsed = parseTicket(ref.kind, bytes);
    if (!parsed.ok) return { ...parsed, ref };
    if (!promotion.recordedAllow) {
      const approved = await this.approvedBy(ref, parsed.ticket.ticket_id);
      if (!approved.ok) return { ...approved, ref };
    }
    const covered = checkTicket(parsed.ticket, promotion);
    if (!covered.ok) return { ...covered, ref };
    const unused = checkUnused(parsed.ticket.ticket_id, await this.useOf(parsed.ticket.ticket_id), promotion.promotion_run_id);
    if (!unused.ok) return { ...unused, ref };
    return { ok: true, ticket: parsed.ticket, ref };
  }

  /**
   * Records the use just before the promotion writes to the shared plane. create() is insert-if-absent, so of two
   * promotions racing past authorisation with the same ticket only one claims it; the other gets the refusal.
   * The same run claiming again (a re-run after a crash) finds its own record and goes on.
   */
  async claim(use: TicketUse): Promise<{ ok: true } | { ok: false; code: TicketCode; reason: string }> {
    const { doc } = await this.store.collection<TicketUse>(TICKET_USES).create(ticketUseId(use.ticket_id), use);
    return checkUnused(use.ticket_id, doc.value, use.promotion_run_id);
  }

  /**
   * §4.5 "approval": what the ticket says counts only if an approver put it in. The artifact's first writer
   * (ArtifactStored on its log subject, db-write's only) must be a caller's ingest, and that `artifact_ingest` run, as
   * its owner db-write wrote it (RunRepository refuses a forged one), must have stored this artifact for a caller
   * whose role the current caller grants make an approver of promotion tickets (acts_as ATTORNEY_ADMIN). A ticket a
   * run stored through rl.artifacts.put (any agent with a lane) has no ingest run: refused, however it is worded.
   */
  private async approvedBy(ref: ArtifactRef, ticketId: string): Promise<{ ok: true } | TicketRefusal> {
    const refuse = (why: string): TicketRefusal => ({ ok: false, code: 'PROMOTION.TICKET_NOT_APPROVED', reason: `Promotion ticket ${ticketId.slice(0, 64)} was not put in by an approver: ${why}.` });
    const subject = aggregateRef('artifact', ref.artifact_id);
    const first = await this.runs.log.first(subject);
    // Nearly always the first event; a subject something else was stored on first is read whole.
    const stored = first?.type === 'ArtifactStored' ? first : (await this.runs.log.read(subject)).find((e) => e.type === 'ArtifactStored');
    const by = (stored?.data ?? {}) as StoredBy;
    if (typeof by.ingest_run_id !== 'string' || !by.ingest_run_id) {
      return refuse(`it was stored by ${typeof by.agent_name === 'string' ? `a ${by.agent_name.slice(0, 64)} run` : 'no caller'} (rl.artifacts.put), not through an approver's rl.caller.<identity>.artifacts.ingest`);
    }
    const ingest = await loadUnlessForged(this.runs, by.ingest_run_id);
    const audited = ingest?.state.run?.run_kind === 'artifact_ingest' && ingest.state.status === 'completed'
      ? ingest.events.map((e) => (e.type === 'ArtifactIngestAudited' ? (e.data as IngestAudited) : undefined)).find((d) => d?.artifact_ref?.artifact_id === ref.artifact_id)
      : undefined;
    if (!audited || typeof audited.caller_role !== 'string') return refuse(`no completed ingest run in the log stored it (${by.ingest_run_id})`);
    const approver = approverOf(this.grants, audited.caller_role, TICKET_KIND);
    if (!approver.ok) return refuse(`${String(audited.requested_by).slice(0, 64)} ingested it, and ${approver.reason}`);
    return { ok: true };
  }

  private async useOf(ticketId: string): Promise<TicketUse | undefined> {
    return (await this.store.collection<TicketUse>(TICKET_USES).get(ticketUseId(ticketId)))?.value;
  }
}
