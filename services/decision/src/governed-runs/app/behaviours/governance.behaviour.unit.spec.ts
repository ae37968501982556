import type { ArtifactRef, PromotionResult } from '@runledger/contracts';
import { runErrorOf } from '../../domain/errors';
import { candidateOf, candidateSha256 } from '../../domain/promotion';
import { responseOf } from '../../domain/response';
import type { AgentRunSpec } from '../../domain/run-spec';
import type { StepRuntime } from './behaviour';
import { governanceBehaviour } from './governance.behaviour';

const ref = (kind: string): ArtifactRef => ({ artifact_id: `art-${kind}`, sha256: 'a'.repeat(64), size_bytes: 10, media_type: 'application/json', kind, case_id: 'case-1' });
const CONTENT: Record<string, unknown> = {
  promotion_ticket: { ticket_id: 'T-1', approved: false, scope: { targets: ['shared_heuristics'], source_case_id: 'case-1' } },
  candidate_insights: { title: 'Deposits', text: 'Send a written demand.' },
};

/** A GOVERNANCE_AGENT step over fake effects: artifacts read from CONTENT, the promotion service answering `answer`. */
function runtime(answer: PromotionResult, outputs: Record<string, unknown> = {}) {
  const spec = { run_id: 'run-1', agent_name: 'GOVERNANCE_AGENT', case_id: 'case-1', input_artifacts: [ref('promotion_ticket'), ref('candidate_insights')], parameters: {} } as unknown as AgentRunSpec;
  const effects = {
    read: async (_lane: string, r: ArtifactRef) => ({ ref: r, text: JSON.stringify(CONTENT[r.kind]) }),
    promote: async () => answer,
  };
  return { rt: { spec, agent: 'GOVERNANCE_AGENT', asOfDay: '2026-11-28', outputs, effects } as unknown as StepRuntime };
}

describe('GOVERNANCE_AGENT and its ticket (contract 001 §4.5 "approval + scope")', () => {
  const refusal = (error_code: string): PromotionResult => ({
    promotion_id: 'p-1', child_run_id: 'promotion-run-1', status: 'denied', output_artifacts: [],
    error: { error_code, message: 'Promotion ticket T-1 is not approved.', retryable: false },
  } as PromotionResult);

  it('001 §4.5 promotion requires an approved ticket: an unapproved one is judged by the promotion service (its refusal recorded as a promotion run), and the agent run ends deny with PROMOTION.TICKET_NOT_APPROVED', async () => {
    const { rt } = runtime(refusal('PROMOTION.TICKET_NOT_APPROVED'));
    // The read step plans the promotion whatever the ticket says: approval is the promotion service's to judge.
    const plan = await governanceBehaviour.runStep('read', rt);
    expect(plan).toMatchObject({ promotion_ticket_id: 'art-promotion_ticket', target: 'shared_heuristics' });
    const { rt: promoting } = runtime(refusal('PROMOTION.TICKET_NOT_APPROVED'), { read: plan });
    const error = await governanceBehaviour.runStep('promote', promoting).then(() => null, (e: unknown) => runErrorOf(e));
    expect(error).toMatchObject({ error_code: 'PROMOTION.TICKET_NOT_APPROVED', retryable: false });
    expect(error!.message).toContain('promotion run promotion-run-1');
    expect(responseOf('GOVERNANCE_AGENT', 'run-1', { status: 'failed', error: error!, output_artifacts: [], child_run_ids: [] })).toMatchObject({ outcome: 'deny', error: { error_code: 'PROMOTION.TICKET_NOT_APPROVED' } });
  });

  it.each(['PROMOTION.TICKET_MISSING', 'PROMOTION.TICKET_SCOPE', 'PROMOTION.TICKET_EXPIRED', 'PROMOTION.TICKET_USED'])('001 §4.5 promotion: the ticket refusal %s keeps its own code on the agent run (deny), not a bare POLICY_DENIED', async (code) => {
    const { rt } = runtime(refusal(code), { read: { promotion_ticket_id: 'art-promotion_ticket', target: 'shared_playbooks', candidate_ref: ref('candidate_insights'), candidate_sha256: candidateSha256(candidateOf(CONTENT.candidate_insights)), identifiers_ref: null, source_artifact_ids: [] } });
    const error = await governanceBehaviour.runStep('promote', rt).then(() => null, (e: unknown) => runErrorOf(e));
    expect(error).toMatchObject({ error_code: code, retryable: false });
    expect(responseOf('GOVERNANCE_AGENT', 'run-1', { status: 'failed', error: error!, output_artifacts: [], child_run_ids: [] }).outcome).toBe('deny');
  });
});
