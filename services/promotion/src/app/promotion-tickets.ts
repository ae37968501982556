import { Inject, Injectable } from '@nestjs/common';
import type { ArtifactRef, GovernanceScope } from '@runledger/contracts';
import type { DocumentStore } from '@runledger/document-store';
import type { CallerGrants } from '@runledger/governance';
import { DOCUMENT_STORE } from '@runledger/messaging';
import { CALLER_GRANTS } from '@runledger/policy-catalog';
import { artifactStored, loadUnlessForged, RunRepository } from '@runledger/runs';
import { ArtifactClient } from '@runledger/service-clients';
import { checkApprover, checkTicket, checkUnused, parseTicket, PromotionTicket, TicketCode, TicketProvenance, TICKET_USES, TicketUse, ticketUseId } from '../domain/promotion-ticket';

export type TicketOutcome =
  | { ok: true; ticket: PromotionTicket; ref: ArtifactRef }
  /** `ref` is the ticket as read, when it could be read: the denied run still records what it judged. */
  | { ok: false; code: TicketCode; reason: string; ref?: ArtifactRef };

/** What rl.artifacts.get accepts as an artifact id; anything else cannot name a ticket artifact. */
const ARTIFACT_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;

/**
 * The promotion ticket as part of authorising a promotion run: read through rl.artifacts.get (hash-verified,
 * case isolation applied, as the promotion run scoped to the source case, like the screen's sources), its approver
 * read from the log (provenance), judged by domain/promotion-ticket.ts, and checked against the
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
      const approved = checkApprover(parsed.ticket.ticket_id, ref.artifact_id, await this.provenance(ref.artifact_id), this.grants);
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
   * What the log says of who put the ticket in (judged by checkApprover): the first ArtifactStored on the artifact's
   * subject (only db-write appends there), and the ingest run it names, read as its owner db-write wrote it (a forged
   * run reads as none).
   */
  private async provenance(artifactId: string): Promise<TicketProvenance> {
    const stored = await artifactStored(this.runs.log, artifactId);
    const data = stored?.data as Record<string, unknown> | undefined;
    const ingestRunId = typeof data?.ingest_run_id === 'string' ? data.ingest_run_id : undefined;
    const ingest = ingestRunId ? await loadUnlessForged(this.runs, ingestRunId) : undefined;
    return {
      stored: data,
      ...(ingest?.state.run ? {
        ingest: {
          run_kind: ingest.state.run.run_kind, status: ingest.state.status,
          audited: ingest.events.filter((e) => e.type === 'ArtifactIngestAudited').map((e) => e.data as Record<string, unknown>),
        },
      } : {}),
    };
  }

  private async useOf(ticketId: string): Promise<TicketUse | undefined> {
    return (await this.store.collection<TicketUse>(TICKET_USES).get(ticketUseId(ticketId)))?.value;
  }
}
