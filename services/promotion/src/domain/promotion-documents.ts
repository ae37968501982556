import type { PromotionRequest } from '@runledger/contracts';
import { canonicalJson, PROMOTION_DETECTION_LIMITS, screenPromotion, type ArtifactRef, type PromotionFinding } from '@runledger/governance';
import { truncateChars } from '@runledger/kernel';

// Pure builders of what a promotion writes: deterministic from the run, so a re-run after a crash
// stores the same bytes under the same content-addressed ids.

export type PromotionTarget = PromotionRequest['target'];

export const PROMOTED_KIND: Record<PromotionTarget, string> = {
  shared_playbooks: 'promoted_shared_playbook',
  shared_heuristics: 'promoted_shared_heuristics',
};

/** Screens title and text separately so a finding's character positions refer to one field. */
export function screenCandidate(candidate: PromotionRequest['candidate'], texts: readonly string[], identifiers: readonly string[]): PromotionFinding[] {
  return (['title', 'text'] as const).flatMap((field) => {
    const screen = screenPromotion({ candidateText: candidate[field], caseArtifactsText: texts, clientIdentifiers: identifiers });
    return screen.ok ? [] : screen.findings.map((f) => ({ rule: f.rule, evidence: truncateChars(`${field}: ${f.evidence}`, 160) }));
  });
}

export interface PromotionFacts {
  promotion_id: string;
  promotion_ticket_id: string;
  target: PromotionTarget;
  source_case_id: string | null;
  /** Sources the caller named. */
  source_artifact_count: number;
  /** Artifacts whose text was screened: the named ones and every one the case's records lead to. */
  screened_artifact_count: number;
  /** Artifacts read but not screened: media with no local text extraction (PDF, images). */
  unscreened_artifact_count: number;
  promoted_by: string;
  lane: string;
  promotion_run_id: string;
  root_run_id: string;
  policy_versions: { lanes: string; roles: string };
  /** The promotion run's RunCreated time: stable across re-runs. */
  promoted_on: string;
}

/** The promoted insight as an artifact: the sanitised candidate and bounded metadata, never source text. */
export function promotedArtifactBytes(candidate: PromotionRequest['candidate'], facts: PromotionFacts): Uint8Array {
  return new TextEncoder().encode(
    canonicalJson({
      title: candidate.title,
      text: candidate.text,
      target: facts.target,
      metadata: { promotion_id: facts.promotion_id, promotion_ticket_id: facts.promotion_ticket_id, source_case_id: facts.source_case_id, promoted_by: facts.promoted_by },
    }),
  );
}

/** The shared-plane document: what readers of shared playbooks/heuristics get. */
export function sharedDocument(docId: string, candidate: PromotionRequest['candidate'], facts: PromotionFacts, promoted: ArtifactRef): Record<string, unknown> {
  return {
    document_id: docId,
    title: candidate.title,
    text: candidate.text,
    artifact_id: promoted.artifact_id,
    artifact_sha256: promoted.sha256,
    // Bounded metadata: ids only. The source case is named so the insight stays traceable, its text never stored.
    metadata: {
      source_case_id: facts.source_case_id,
      source_artifact_count: facts.source_artifact_count,
      screened_artifact_count: facts.screened_artifact_count,
      promotion_id: facts.promotion_id,
      promotion_ticket_id: facts.promotion_ticket_id,
      promoted_by: facts.promoted_by,
      promotion_run_id: facts.promotion_run_id,
      root_run_id: facts.root_run_id,
      promoted_on: facts.promoted_on,
    },
  };
}

/** The human-auditable receipt (text/plain). */
export function receiptText(candidate: PromotionRequest['candidate'], facts: PromotionFacts, promoted: ArtifactRef, sharedDocumentId: string): Uint8Array {
  const lines = [
    'Runledger promotion receipt',
    '',
    `Status:            promoted`,
    `Promotion:         ${facts.promotion_id}`,
    `Ticket:            ${facts.promotion_ticket_id}`,
    `Target:            ${facts.target} (document ${sharedDocumentId})`,
    `Title:             ${candidate.title}`,
    `Source case:       ${facts.source_case_id ?? 'none (not derived from a case)'}`,
    `Screened against:  ${facts.screened_artifact_count} artifact(s) of the source case (${facts.source_artifact_count} named as sources, the rest referenced by its transcripts, interview notes and facts), those records, and its known client identifiers`,
    ...(facts.unscreened_artifact_count ? [`Not screened:      ${facts.unscreened_artifact_count} artifact(s) with no text extraction (e.g. PDF, images)`] : []),
    `Promoted by:       ${facts.promoted_by} in lane ${facts.lane}`,
    `Promotion run:     ${facts.promotion_run_id} (root run ${facts.root_run_id})`,
    `Policy versions:   lanes ${facts.policy_versions.lanes}, roles ${facts.policy_versions.roles}`,
    `Promoted on:       ${facts.promoted_on}`,
    `Promoted artifact: ${promoted.artifact_id}`,
    `  sha256:          ${promoted.sha256} (${promoted.size_bytes} bytes)`,
    '',
    'Sanitiser result: no raw case text, client identity or privileged note was found.',
    '',
    'What the sanitiser detects and what it does not:',
    PROMOTION_DETECTION_LIMITS,
    '',
  ];
  return new TextEncoder().encode(lines.join('\n'));
}
