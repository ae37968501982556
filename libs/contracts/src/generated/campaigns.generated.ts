/* eslint-disable */
// Generated from proto-contracts/schemas/campaigns/ by scripts/generate-contracts.js. Do not edit by hand.

/**
 * agents.campaign.answer: an operator approves or rejects a pending generate_message / persist_artifact, or answers a request_user_input question. Only roles allowed by the pinned roles policy (CAMPAIGN_OPERATOR) may decide; the approver and the decision are recorded and audited. An expired item is never executed.
 */
export interface CampaignAnswerRequest {
  campaign_id: string;
  item_id: string;
  decision: 'approved' | 'rejected' | 'answered';
  answer?: string;
  approver: CampaignApprover;
}
export interface CampaignApprover {
  id: string;
  role: string;
}

/**
 * agents.campaign.start, agents.campaign.pause, agents.campaign.get, agents.campaign.cycle and agents.campaign.run: one campaign, by id. max_cycles bounds agents.campaign.run (default 20), which runs cycles until the campaign is no longer active, a cycle proposes no_op, or the bound is reached. Past the reply timeout cycle and run answer RUN.TIMEOUT (retryable): asked again with the same request_id, the caller gets the outcome of the cycles it queued.
 */
export interface CampaignCommandRequest {
  campaign_id: string;
  reason?: string;
  max_cycles?: number;
  /**
   * agents.campaign.cycle and agents.campaign.run: the caller's id of this request, the same on each retry; a repeated request joins the cycles it queued (and answers their outcome) instead of queueing more. @runledger/client sends one.
   */
  request_id?: string;
}

/**
 * agents.campaign.create: a contract-003 campaign run by the controller in decision. The agent is a script of proposals recorded in the log (deterministic, offline) a model behind an OpenAI-compatible API, or an LLM agent session (one per proposal, started by decision in process). Idempotent per campaign_id.
 */
export interface CampaignCreateRequest {
  campaign_id: string;
  name: string;
  /**
   * The agent, by its kind (a discriminator: a missing or unknown kind is refused naming the kinds).
   */
  agent: ScriptedAgentSpec | LlmAgentSpec | SessionAgentSpec;
  settings?: CampaignSettingsInput;
}
export interface ScriptedAgentSpec {
  kind: 'scripted';
  /**
   * The n-th proposal the agent is asked for is proposals[n] (any JSON: invalid proposals are how FR-010 is exercised); past the end the agent proposes no_op campaign_complete.
   *
   * @maxItems 1000
   */
  proposals: unknown[];
}
export interface LlmAgentSpec {
  kind: 'llm';
  model: string;
  /**
   * Agent profile id; omitted: chosen each cycle by contract-004 selection (fallback standard).
   */
  profile?: string;
  /**
   * Token budget for injected abilities (default 800).
   */
  token_limit?: number;
}
export interface SessionAgentSpec {
  kind: 'session';
  /**
   * An agent profile (AGENT_PROFILES_DIR, as sessions.start names one); each proposal is one contract-002 session whose final report is the proposal.
   */
  agent: string;
  version?: string;
}
export interface CampaignSettingsInput {
  /**
   * FR-010: an invalid proposal is asked again (up to max_attempts) or aborts the cycle. Default retry.
   */
  on_invalid?: 'retry' | 'abort';
  /**
   * Proposals asked per cycle at most. Default 2.
   */
  max_attempts?: number;
  /**
   * How long a pending approval or question stays answerable. Default 86400.
   */
  approval_ttl_seconds?: number;
}

/**
 * agents.campaign.leads.import: adds leads to a campaign. Lead ids derive from (campaign, import_id, position); the same import again imports nothing, and an import_id seen before with other leads is REQUEST.CONFLICT.
 */
export interface CampaignLeadsImportRequest {
  campaign_id: string;
  import_id: string;
  /**
   * @minItems 1
   * @maxItems 1000
   */
  leads: [CampaignLeadInput, ...CampaignLeadInput[]];
}
export interface CampaignLeadInput {
  full_name: string;
  /**
   * An absolute http: or https: URL; any other scheme (javascript:, data:, file: …) is REQUEST.INVALID naming the field.
   */
  profile_url: string;
  job_title?: string;
  company?: string;
  weight_score?: number;
}

/**
 * The reply of every agents.campaign.* request: the campaign folded from its events (rl.log.campaign.{campaign_id}), and for cycle/run the cycles just run.
 */
export interface CampaignView {
  campaign_id: string;
  name: string;
  status: 'initializing' | 'active' | 'paused' | 'completed' | 'error';
  cycles: number;
  current_task_id?: string | null;
  current_lead_id?: string | null;
  tasks: CampaignTaskView[];
  leads: CampaignLeadView[];
  pending_items: CampaignItemView[];
  artifacts: {}[];
  ran?: CampaignCycleOutcome[];
}
export interface CampaignTaskView {
  id: string;
  description: string;
  status: 'pending' | 'in-progress' | 'done' | 'blocked';
  preconditions?: string[];
}
export interface CampaignLeadView {
  id: string;
  full_name: string;
  profile_url: string;
  job_title?: string;
  company?: string;
  weight_score?: number;
  status: 'pending' | 'contacted' | 'responded';
}
export interface CampaignItemView {
  item_id: string;
  kind: 'generate_message' | 'persist_artifact' | 'request_user_input';
  status: 'pending' | 'approved' | 'rejected' | 'answered' | 'expired';
  expires_at: string;
  proposal?: {};
  executed?: {};
}
export interface CampaignCycleOutcome {
  cycle: number;
  run_id: string;
  /**
   * executed: the proposal was carried out and its effect succeeded; failed: carried out, but its effect did not succeed (a tool denied, failed or not verified, a write refused; errors names the code).
   */
  outcome: 'executed' | 'failed' | 'aborted' | 'awaiting_approval' | 'refused';
  action_type?: string | null;
  errors?: string[];
  validation_error?: {};
}
