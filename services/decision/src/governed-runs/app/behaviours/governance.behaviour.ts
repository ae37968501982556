import type { ArtifactRef } from '@runledger/governance';
import { deterministicUuid } from '@runledger/kernel';
import { LANES } from '../../domain/agents';
import { AgentStepError, invalidInput, policyDenied, PROMOTION_TICKET_CODES } from '../../domain/errors';
import { Candidate, candidateOf, candidateSha256, identifiersOf, PROMOTION_KINDS, PromotionTarget, ticketTargetOf } from '../../domain/promotion';
import { AgentBehaviour, outputOf, StepRuntime, unknownStep } from './behaviour';
import { inputsOfKind, readJson, requireInput } from './inputs';

const LANE = LANES.promote;

/**
 * The checkpointed output of the read step. Step outputs are StepCompleted events in the permanent log, so the
 * plan holds references and a digest only: the candidate text and the client identifiers stay in their artifacts.
 */
interface PromotionPlan {
  /** The ticket artifact's id: the promotion service reads and judges the ticket itself. */
  promotion_ticket_id: string;
  target: PromotionTarget;
  candidate_ref: ArtifactRef;
  candidate_sha256: string;
  identifiers_ref: ArtifactRef | null;
  source_artifact_ids: string[];
}

async function readCandidate(rt: StepRuntime, ref: ArtifactRef): Promise<Candidate> {
  return candidateOf(await readJson(rt, LANE, ref));
}

async function plan(rt: StepRuntime): Promise<PromotionPlan> {
  const ticketRef = requireInput(rt.spec, 'promotion_ticket');
  // Only the target is read here: whether the ticket approves this promotion is the promotion service's judgement,
  // recorded on its promotion run (AuthzDecided deny, RunDenied) like every choke point's refusal.
  const target = ticketTargetOf(await readJson(rt, LANE, ticketRef));
  const candidateRef = requireInput(rt.spec, 'candidate_insights');
  const identifiersRef = inputsOfKind(rt.spec, 'client_identifiers')[0] ?? null;
  // Read now so a malformed input fails the run before the promotion service is asked; only its reference is kept.
  if (identifiersRef) identifiersOf(await readJson(rt, LANE, identifiersRef));
  return {
    promotion_ticket_id: ticketRef.artifact_id, target,
    candidate_ref: candidateRef, candidate_sha256: candidateSha256(await readCandidate(rt, candidateRef)),
    identifiers_ref: identifiersRef,
    source_artifact_ids: rt.spec.input_artifacts.filter((a) => !PROMOTION_KINDS.includes(a.kind)).map((a) => a.artifact_id),
  };
}

async function promote(rt: StepRuntime, p: PromotionPlan) {
  // Re-read through the verified path (the bytes must match the reference's sha256): what is promoted is what was planned.
  const candidate = await readCandidate(rt, p.candidate_ref);
  if (candidateSha256(candidate) !== p.candidate_sha256) throw invalidInput('The candidate read back is not the one planned.');
  const identifiers = p.identifiers_ref ? identifiersOf(await readJson(rt, LANE, p.identifiers_ref)) : [];
  // Candidate and identifiers cross the bus to the promotion service only; it records their digest, not them.
  const result = await rt.effects.promote(
    {
      promotion_id: deterministicUuid('promotion', rt.spec.run_id), promotion_ticket_id: p.promotion_ticket_id, target: p.target, candidate,
      source_case_id: rt.spec.case_id, source_artifact_ids: p.source_artifact_ids, ...(identifiers.length ? { client_identifiers: identifiers } : {}),
    },
    LANE,
    { promotion_ticket_id: p.promotion_ticket_id },
  );
  if (result.status === 'refused') {
    const rules = [...new Set((result.findings ?? []).map((f) => f.rule))].join(', ');
    throw new AgentStepError('PROMOTION.REFUSED', `The sanitiser refused the candidate (${rules || 'prohibited content'}); promotion run ${result.child_run_id}.`);
  }
  if (result.status === 'denied') {
    // A screen that could not read every source of the case keeps its own code: the candidate was not screened.
    if (result.error?.error_code === 'PROMOTION.SCREEN_INCOMPLETE') throw new AgentStepError('PROMOTION.SCREEN_INCOMPLETE', result.error.message);
    // So does a ticket refusal (PROMOTION.TICKET_*): the caller sees why, the promotion run holds the decision.
    const code = result.error?.error_code;
    if (code && (PROMOTION_TICKET_CODES as readonly string[]).includes(code)) throw new AgentStepError(code, `${result.error!.message} (promotion run ${result.child_run_id})`);
    // Other denials (lane, case) are policy denials; the code stays in the message.
    throw policyDenied(result.error ? `${result.error.error_code}: ${result.error.message}` : 'The promotion was denied by policy.');
  }
  if (result.status !== 'promoted') throw new AgentStepError('DEPENDENCY_DOWN', result.error?.message ?? 'The promotion failed.', result.error?.retryable ?? true);
  return { child_run_id: result.child_run_id, shared_document_id: result.shared_document_id ?? null, output_artifacts: result.output_artifacts ?? [] };
}

/** GOVERNANCE_AGENT (§4.5): asks the promotion service to screen and promote a candidate, lane PROMOTE_SHARED_KNOWLEDGE only. */
export const governanceBehaviour: AgentBehaviour = {
  async runStep(stepId: string, rt: StepRuntime): Promise<unknown> {
    switch (stepId) {
      case 'read':
        return plan(rt);
      case 'promote':
        return promote(rt, outputOf<PromotionPlan>(rt.outputs, 'read'));
      default:
        return unknownStep('GOVERNANCE_AGENT', stepId);
    }
  },

  outcome(outputs) {
    const promoted = outputOf<{ child_run_id: string; shared_document_id: string | null; output_artifacts: ArtifactRef[] }>(outputs, 'promote');
    const p = outputOf<PromotionPlan>(outputs, 'read');
    return {
      output_artifacts: promoted.output_artifacts,
      result: { promotion_ticket_id: p.promotion_ticket_id, target: p.target, promotion_run_id: promoted.child_run_id, shared_document_id: promoted.shared_document_id },
    };
  },
};
