import type { ArtifactRef } from '@runledger/governance';
import { deterministicUuid } from '@runledger/kernel';
import { LANES } from '../../domain/agents';
import { AgentStepError, invalidInput, policyDenied } from '../../domain/errors';
import { clip, textOf } from '../../domain/text';
import { AgentBehaviour, outputOf, StepRuntime, unknownStep } from './behaviour';
import { readJson, requireInput } from './inputs';

const LANE = LANES.promote;
const TARGETS = ['shared_playbooks', 'shared_heuristics'] as const;
/** Inputs that describe the promotion itself; every other input is case material the candidate must not copy. */
const PROMOTION_KINDS = ['promotion_ticket', 'candidate_insights', 'redaction_report'];

interface PromotionPlan {
  promotion_ticket_id: string;
  target: (typeof TARGETS)[number];
  candidate: { title: string; text: string };
  source_artifact_ids: string[];
  client_identifiers: string[];
}

async function plan(rt: StepRuntime): Promise<PromotionPlan> {
  const ticket = (await readJson(rt, LANE, requireInput(rt.spec, 'promotion_ticket'))) as Record<string, unknown> | null;
  const ticketId = textOf(ticket?.promotion_ticket_id);
  if (!ticketId) throw invalidInput('The promotion_ticket artifact needs a promotion_ticket_id.');
  // The ticket is the human approval (§4.5 "approval + scope"): without it nothing is promoted.
  if (ticket?.approved !== true) throw policyDenied(`Promotion ticket ${clip(ticketId, 64)} is not approved.`);
  const target = (TARGETS as readonly string[]).includes(textOf(ticket?.target)) ? (textOf(ticket?.target) as PromotionPlan['target']) : 'shared_playbooks';
  const raw = (await readJson(rt, LANE, requireInput(rt.spec, 'candidate_insights'))) as Record<string, unknown> | null;
  const first = Array.isArray(raw?.candidates) ? (raw!.candidates[0] as Record<string, unknown>) : raw;
  const candidate = { title: clip(textOf(first?.title), 200), text: textOf(first?.text) };
  if (!candidate.title || !candidate.text) throw invalidInput('The candidate_insights artifact needs a title and a text.');
  const identifiers = Array.isArray(rt.spec.parameters.client_identifiers) ? rt.spec.parameters.client_identifiers.filter((v): v is string => typeof v === 'string') : [];
  return {
    promotion_ticket_id: ticketId, target, candidate,
    source_artifact_ids: rt.spec.input_artifacts.filter((a) => !PROMOTION_KINDS.includes(a.kind)).map((a) => a.artifact_id),
    client_identifiers: identifiers.slice(0, 100),
  };
}

/** GOVERNANCE_AGENT (§4.5): promotes a sanitised candidate through the promotion service, lane PROMOTE_SHARED_KNOWLEDGE only. */
export const governanceBehaviour: AgentBehaviour = {
  async runStep(stepId: string, rt: StepRuntime): Promise<unknown> {
    switch (stepId) {
      case 'read':
        return plan(rt);
      case 'promote': {
        const p = outputOf<PromotionPlan>(rt.outputs, 'read');
        const result = await rt.effects.promote(
          {
            promotion_id: deterministicUuid('promotion', rt.spec.run_id), promotion_ticket_id: p.promotion_ticket_id, target: p.target, candidate: p.candidate,
            source_case_id: rt.spec.case_id, source_artifact_ids: p.source_artifact_ids, ...(p.client_identifiers.length ? { client_identifiers: p.client_identifiers } : {}),
          },
          LANE,
          { promotion_ticket_id: p.promotion_ticket_id },
        );
        if (result.status === 'refused') {
          const rules = [...new Set((result.findings ?? []).map((f) => f.rule))].join(', ');
          throw new AgentStepError('PROMOTION.REFUSED', `The sanitiser refused the candidate (${rules || 'prohibited content'}); promotion run ${result.child_run_id}.`);
        }
        if (result.status === 'denied') throw policyDenied(result.error?.message ?? 'The promotion was denied by policy.');
        if (result.status !== 'promoted') throw new AgentStepError('DEPENDENCY_DOWN', result.error?.message ?? 'The promotion failed.', result.error?.retryable ?? true);
        return { child_run_id: result.child_run_id, shared_document_id: result.shared_document_id ?? null, output_artifacts: result.output_artifacts ?? [] };
      }
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
