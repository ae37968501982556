import type { DeepReadonly, StateSnapshot } from '@runledger/agent-runtime';
import type { AgentSpec } from '../domain/campaign-types';

/** What the controller hands the agent for one proposal: the snapshot and nothing else it could remember. */
export interface ProposalRequest {
  campaign_id: string;
  cycle: number;
  attempt: number;
  snapshot: DeepReadonly<StateSnapshot>;
  /** The validation errors of the previous attempt in this cycle (FR-010 retry), so the agent can correct itself. */
  previous_errors: readonly string[];
  /** How many proposals the agent gave before this one (the scripted agent's position). */
  proposals_asked: number;
}

export interface ProposalAnswer {
  /** The agent's answer as given: parsed JSON, or the text when it was not JSON. */
  raw: unknown;
  /** Recorded with the proposal: which agent, model, profile, abilities, prompt hash, usage. */
  info: Record<string, unknown>;
}

/**
 * The port "ask the agent for one proposal". Adapters: the scripted agent (offline, deterministic: its script
 * is in the log), and a model over an OpenAI-compatible API. An LLM session service (sessions, started in process) can
 * serve this port as a further adapter without the controller changing.
 */
export interface ProposalAgent {
  propose(spec: AgentSpec, request: ProposalRequest): Promise<ProposalAnswer>;
  /**
   * Why a spec can never give a proposal (a profile or session agent it does not know, a token limit below what every prompt needs),
   * and the create request's field at fault (`agent.token_limit`), or null. Asked at create, so such a campaign is
   * refused there instead of failing every cycle.
   */
  specProblem(spec: AgentSpec): Promise<SpecProblem | null>;
}

/** A problem of an agent spec: the request field it is in (its path, `agent.token_limit`, as validation details name fields) and why. */
export interface SpecProblem {
  path: string;
  problem: string;
}

export const PROPOSAL_AGENT = Symbol('PROPOSAL_AGENT');

/** The scripted agent: the n-th proposal asked is the script's n-th entry; past its end, campaign_complete. */
export function scriptedProposal(proposals: readonly unknown[], asked: number): ProposalAnswer {
  const raw = asked < proposals.length ? proposals[asked] : { action_type: 'no_op', reason: 'campaign_complete', details: 'The script has no more proposals.' };
  return { raw, info: { kind: 'scripted', position: asked } };
}
