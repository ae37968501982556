import { Inject, Injectable } from '@nestjs/common';
import { GovernanceScope, PromotionAuditedData, PromotionRequestDto, PromotionResult } from '@runledger/contracts';
import type { DocumentStore } from '@runledger/document-store';
import { ArtifactRef, authorize, AuthzRequest, authzInputsOf, PromotionFinding, sha256Hex } from '@runledger/governance';
import { AppError, deterministicUuid } from '@runledger/kernel';
import { DOCUMENT_STORE } from '@runledger/messaging';
import { PolicyCatalog } from '@runledger/policy-catalog';
import { authzDecidedOf, CallerVerifier, childRequestHash, childRunCreatedOf, childRunId as childRunIdOf, childScopeOf, Decision, EffectOutcome, isTerminal, runChildOnce, RunEvent, RunRepository, RunState, unsuccessfulReply } from '@runledger/runs';
import { ArtifactClient } from '@runledger/service-clients';
import { CaseSources, CaseSourcesReader } from './case-sources';
import { PromotionTickets } from './promotion-tickets';
import { PROMOTED_KIND, PromotionFacts, promotedArtifactBytes, receiptText, screenCandidate, sharedDocument } from '../domain/promotion-documents';

/** What the effect needs from authorisation: the sources read and the ticket that approved the promotion. */
interface Authorised {
  sources: CaseSources;
  ticket: { ticket_id: string; ref: ArtifactRef };
}

/** What a PromotionAudited says of the outcome, beside what every one of them says. */
type AuditedOutcome = Pick<PromotionAuditedData, 'findings_count' | 'output_artifacts' | 'shared_document_id' | 'error_code'>;

interface Promoted {
  shared_document_id: string;
  output_artifacts: ArtifactRef[];
}

/**
 * §4.5 promotion, the only writer of the shared knowledge plane. Each promotion is a promotion child run of
 * the caller's run (id from parent run and promotion_id, so a retry returns the recorded outcome): authorised
 * in lane PROMOTE_SHARED_KNOWLEDGE for `append:<target>` and by its promotion ticket (app/promotion-tickets.ts:
 * `promotion_ticket_id` is the id of an approved, unexpired, unused `promotion_ticket` artifact covering the
 * target and source case; otherwise AuthzDecided deny, RunDenied PROMOTION.TICKET_*), screened against the source case's own text and
 * client identifiers (app/case-sources.ts says what is read; a case too large to read completely is refused
 * with PROMOTION.SCREEN_INCOMPLETE), and either refused (PromotionRefused + PromotionAudited, RunFailed PROMOTION.REFUSED) or
 * written to the shared plane with a promoted artifact and a receipt (PromotionAudited, RunCompleted).
 * The candidate text never enters the log: a refused candidate may be the very leak being stopped.
 */
@Injectable()
export class PromotionService {
  constructor(
    private readonly runs: RunRepository,
    private readonly callers: CallerVerifier,
    private readonly policies: PolicyCatalog,
    private readonly sources: CaseSourcesReader,
    private readonly tickets: PromotionTickets,
    private readonly artifacts: ArtifactClient,
    @Inject(DOCUMENT_STORE) private readonly store: DocumentStore,
  ) {}

  async promote(req: PromotionRequestDto): Promise<PromotionResult> {
    const g = req.governance;
    const childRunId = childRunIdOf('promotion', g.parent_run_id, req.promotion_id);
    const recorded = await this.runs.load(childRunId);
    if (isTerminal(recorded.state)) return this.view(childRunId, recorded.state, true);

    const action = `append:${req.target}`;
    const request: AuthzRequest = {
      agent_name: g.agent_name, lane: g.lane, kind: 'promotion', action, run_case_id: g.case_id, target_case_id: req.source_case_id, run_user_id: g.user_id,
      scope: { ...(g.scope ?? {}), run_id: g.parent_run_id, promotion_ticket_id: req.promotion_ticket_id },
    };
    const at = { lane: g.lane, action, policy_versions: g.policy_versions, inputs: authzInputsOf(request) };
    const policy = await this.policies.resolve(g.policy_versions);
    // Claims first, against the calling run's record: another agent's identity or a run not in the log is a denial.
    // Then the lane; then the ticket: the choke point, not its callers, decides whether a human approved this
    // promotion; then the sources: one the caller may not read (another case, missing, tampered), or more than the
    // screen can read completely, makes the promotion a denial, recorded like any other. All of that is authorising,
    // so it runs inside decideChild, which refuses a finished caller only after it (a case denial comes first).
    // Until the promotion run is created, artifacts are read as the (verified) calling run. Expiry is judged at the
    // run's creation: recorded for a resumed run, else now (it is created next).
    const asRun = childScopeOf(g, childRunId);
    const sourceCase = req.source_case_id ?? g.case_id ?? null;
    let ticket: Authorised['ticket'] | undefined;
    let ticketRef: ArtifactRef | undefined;
    let sources: CaseSources | undefined;
    const decided = await this.callers.decideChild(g, async (): Promise<Decision> => {
      const byPolicy = authorize(policy, request);
      if (byPolicy.decision === 'deny') return byPolicy;
      const checked = await this.tickets.authorise(
        req.promotion_ticket_id,
        {
          target: req.target, source_case_id: sourceCase, promotion_run_id: childRunId, at: recorded.state.created_at ?? new Date().toISOString(),
          recordedAllow: recorded.state.authz?.decision === 'allow',
        },
        g,
      );
      ticketRef = checked.ref;
      if (!checked.ok) return { decision: 'deny', code: checked.code, reason: checked.reason };
      ticket = { ticket_id: checked.ticket.ticket_id, ref: checked.ref };
      const loaded = await this.sources.load(
        { caseId: req.source_case_id ?? g.case_id, artifactIds: req.source_artifact_ids ?? [], suppliedIdentifiers: req.client_identifiers ?? [] },
        g,
      );
      if (!loaded.ok) return { decision: 'deny', code: loaded.code, reason: loaded.reason };
      sources = loaded.sources;
      return { decision: 'allow' };
    });
    if (decided.decision !== 'allow') sources = undefined;
    const authz = authzDecidedOf(decided, at);

    const outcome = await runChildOnce<Promoted>(
      this.runs,
      {
        created: childRunCreatedOf('promotion', childRunId, g, {
          // The ticket and every artifact the screen read, not only those the caller named: the run's inputs are what it read.
          input_artifacts: plain([...(ticketRef ? [ticketRef] : []), ...(sources?.read ?? [])]),
          // Ids and a digest only: the candidate text and client identifiers stay out of the immutable log.
          parameters: {
            promotion_id: req.promotion_id, promotion_ticket_id: req.promotion_ticket_id, target: req.target, source_case_id: req.source_case_id ?? null,
            source_artifact_ids: req.source_artifact_ids ?? [], candidate_sha256: sha256Hex(`${req.candidate.title}\n${req.candidate.text}`),
          },
          request_hash_sha256: childRequestHash({ ...req, governance: { ...g, parent_run_id: undefined } }),
        }),
        authz,
      },
      () => this.screenAndWrite(req, childRunId, asRun, { sources: sources!, ticket: ticket! }),
    );
    return this.view(childRunId, outcome.state, outcome.replayed);
  }

  private async screenAndWrite(req: PromotionRequestDto, childRunId: string, g: GovernanceScope, { sources, ticket }: Authorised): Promise<EffectOutcome<Promoted>> {
    // Without an explicit source, an insight promoted by a run pinned to a case derives from that case.
    const sourceCase = req.source_case_id ?? g.case_id ?? null;
    const audited = {
      target: req.target, promotion_id: req.promotion_id, promotion_ticket_id: req.promotion_ticket_id, ticket_id: ticket.ticket_id, ticket_artifact: ticket.ref,
      ...(sourceCase ? { source_case_id: sourceCase } : {}), source_artifacts: sources.named,
      screened_artifact_count: sources.read.length - sources.unscreened.length, unscreened_artifact_ids: sources.unscreened.map((a) => a.artifact_id),
    };
    // PromotionAudited as audit_event.schema.json has it: the lane, the outcome, and the run's inputs (the ticket
    // and every artifact the screen read, as RunCreated recorded them) beside what the screen found.
    const promotionAudited = (outcome: PromotionAuditedData['outcome'], data: AuditedOutcome): RunEvent => ({
      type: 'PromotionAudited',
      data: { ...audited, lane: g.lane, outcome, input_artifacts: plain([ticket.ref, ...sources.read]), status: outcome, ...data } satisfies PromotionAuditedData,
    });
    const findings = screenCandidate(req.candidate, sources.texts, sources.identifiers);
    if (findings.length > 0) {
      const rules = [...new Set(findings.map((f) => f.rule))];
      return {
        status: 'failed',
        error: { error_code: 'PROMOTION.REFUSED', message: `The candidate was refused: ${rules.join(', ')}.`, retryable: false },
        audit: [
          { type: 'PromotionRefused', data: { ...audited, rules, findings } },
          promotionAudited('refused', { findings_count: findings.length, output_artifacts: [] }),
        ],
      };
    }

    const { state } = await this.runs.load(childRunId);
    const facts: PromotionFacts = {
      promotion_id: req.promotion_id, promotion_ticket_id: req.promotion_ticket_id, target: req.target, source_case_id: sourceCase,
      source_artifact_count: sources.named.length, screened_artifact_count: audited.screened_artifact_count, unscreened_artifact_count: sources.unscreened.length,
      promoted_by: g.agent_name, lane: g.lane, promotion_run_id: childRunId, root_run_id: g.root_run_id, policy_versions: g.policy_versions, promoted_on: state.created_at ?? '',
    };
    try {
      // Claimed only once the candidate passed the screen: a refused candidate leaves the approval unused for a corrected one.
      const claimed = await this.tickets.claim({
        ticket_id: ticket.ticket_id, ticket_artifact_id: ticket.ref.artifact_id, promotion_id: req.promotion_id, promotion_run_id: childRunId, target: req.target, source_case_id: sourceCase,
      });
      if (!claimed.ok) {
        // Lost a race with another promotion after authorisation: a failure of this run, nothing written.
        return {
          status: 'failed',
          error: { error_code: claimed.code, message: claimed.reason, retryable: false },
          audit: [promotionAudited('failed', { findings_count: 0, error_code: claimed.code, output_artifacts: [] })],
        };
      }
      return await this.write(req, childRunId, g, facts, (data) => promotionAudited('promoted', data));
    } catch (err) {
      // Transient failures propagate: the run stays open and a retry of the same promotion resumes it.
      if (!(err instanceof AppError) || err.retryable) throw err;
      return {
        status: 'failed',
        error: { error_code: err.code, message: err.message, retryable: false },
        audit: [promotionAudited('failed', { findings_count: 0, error_code: err.code, output_artifacts: [] })],
      };
    }
  }

  private async write(req: PromotionRequestDto, childRunId: string, g: GovernanceScope, facts: PromotionFacts, audit: (data: AuditedOutcome) => RunEvent): Promise<EffectOutcome<Promoted>> {
    // Shared-plane artifacts belong to no case, whatever case the promoting run works on.
    const shared: GovernanceScope = { ...g, case_id: undefined };
    const promoted = await this.artifacts.put(promotedArtifactBytes(req.candidate, facts), { media_type: 'application/json', kind: PROMOTED_KIND[req.target], name: `${req.promotion_id}.json` }, shared);
    const docId = deterministicUuid(childRunId, 'shared-document');
    // create() is insert-if-absent: a re-run after a crash finds its own document and leaves it alone.
    await this.store.collection<Record<string, unknown>>(req.target).create(docId, sharedDocument(docId, req.candidate, facts, promoted));
    const receipt = await this.artifacts.put(receiptText(req.candidate, facts, promoted, docId), { media_type: 'text/plain; charset=utf-8', kind: 'promotion_receipt', name: `${req.promotion_id}.receipt.txt` }, shared);

    const result: Promoted = { shared_document_id: docId, output_artifacts: [promoted, receipt] };
    return {
      status: 'completed',
      result,
      output_artifacts: plain(result.output_artifacts),
      response_hash_sha256: childRequestHash(result),
      audit: [audit({ findings_count: 0, shared_document_id: docId, output_artifacts: result.output_artifacts })],
    };
  }

  /** The reply, from the recorded run only, so a replay answers exactly what the first call answered. */
  private async view(childRunId: string, state: RunState, replayed: boolean): Promise<PromotionResult> {
    if (state.status === 'completed') {
      const r = state.result as Promoted;
      return { child_run_id: childRunId, status: 'promoted', shared_document_id: r.shared_document_id, output_artifacts: r.output_artifacts, replayed };
    }
    if (state.error?.error_code === 'PROMOTION.REFUSED') {
      const { events } = await this.runs.load(childRunId);
      const refused = events.find((e) => e.type === 'PromotionRefused')?.data as { findings: PromotionFinding[] } | undefined;
      return { child_run_id: childRunId, status: 'refused', findings: refused?.findings ?? [], error: state.error, replayed };
    }
    return { child_run_id: childRunId, ...unsuccessfulReply(state, 'promotion'), replayed };
  }
}


// The run log's artifact type has an index signature an interface does not satisfy; plain copies do.
function plain(refs: readonly ArtifactRef[]) {
  return refs.map((r) => ({ ...r }));
}
