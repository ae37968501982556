/**
 * The campaign aggregate of contract 003 (`rl.log.campaign.{id}`): the controller's whole state — campaign
 * status, tasks, leads, artifacts, cycles, pending approvals — as events. The agent never holds state; each
 * cycle it is shown a bounded snapshot folded from these events and may propose one action.
 */
import type { LeadsImportedData } from '@runledger/contracts';

export type CampaignStatus = 'initializing' | 'active' | 'paused' | 'completed' | 'error';
export type TaskStatus = 'pending' | 'in-progress' | 'done' | 'blocked';
export type LeadStatus = 'pending' | 'contacted' | 'responded';

/** Who proposes: a script recorded in the log (offline, deterministic), a model behind the OpenAI API, or an agent session. */
export type AgentSpec =
  | { kind: 'scripted'; proposals: unknown[] }
  | { kind: 'llm'; model: string; profile?: string; token_limit?: number }
  | { kind: 'session'; agent: string; version?: string };

export interface CampaignSettings {
  /** FR-010: what an invalid proposal leads to — ask again (up to max_attempts) or abort the cycle at once. */
  on_invalid: 'retry' | 'abort';
  max_attempts: number;
  /** How long a pending approval or question stays answerable. */
  approval_ttl_seconds: number;
}

/** A lead as LeadsImported records it (the type generated from its event schema). */
export type Lead = LeadsImportedData['leads'][number];

export interface Approver {
  id: string;
  role: string;
}

export type PendingKind = 'generate_message' | 'persist_artifact' | 'request_user_input';
export type ItemDecision = 'approved' | 'rejected' | 'answered';

export interface PendingItem {
  item_id: string;
  kind: PendingKind;
  cycle: number;
  proposal: Record<string, unknown>;
  requested_at: string;
  expires_at: string;
  status: 'pending' | ItemDecision | 'expired';
  approver?: Approver;
  answer?: string;
  /** Set once an approved item's effect is recorded; an approved item without it is still owed its effect. */
  executed?: { status: string; child_run_id?: string };
}

export type CampaignEvent =
  | { type: 'CampaignCreated'; data: { campaign_id: string; name: string; case_id: string; agent: AgentSpec; settings: CampaignSettings; policy_versions: { lanes: string; roles: string }; requested_by?: string } }
  | { type: 'LeadsImported'; data: { import_id: string; leads: Lead[] } }
  | { type: 'CampaignStarted'; data: Record<string, never> }
  | { type: 'CampaignPaused'; data: { reason: string } }
  | { type: 'CampaignCompleted'; data: { cycle: number; details?: string } }
  | { type: 'CycleStarted'; data: { cycle: number; run_id: string; request_run_id?: string; snapshot_sha256: string; snapshot: unknown; omitted: { pending_tasks: number; audit_entries: number } } }
  | { type: 'ProposalRecorded'; data: ProposalRecordedData }
  | { type: 'CycleAborted'; data: { cycle: number; reason: string } }
  | { type: 'TaskCreated'; data: { cycle: number; task_id: string; description: string; preconditions: string[]; justification?: string; warnings: string[] } }
  | { type: 'TaskSelected'; data: { cycle: number; task_id: string; reasoning?: string } }
  | { type: 'TaskSelectionRefused'; data: { cycle: number; task_id: string; reason: string } }
  | { type: 'TaskStatusChanged'; data: { task_id: string; from: TaskStatus; to: TaskStatus; verified_by: { cycle: number; tool_name: string; child_run_id: string; check: string } } }
  | { type: 'ToolExecuted'; data: ToolExecutedData }
  | { type: 'LeadsAnalyzed'; data: { cycle: number; analysis_type: string; ranking: string[]; current_lead_id: string | null; scores: Record<string, number> } }
  | { type: 'ApprovalRequested'; data: { item_id: string; kind: PendingKind; cycle: number; proposal: Record<string, unknown>; expires_at: string } }
  | { type: 'ApprovalDecided'; data: { item_id: string; decision: ItemDecision; approver: Approver; answer?: string; decided_at: string } }
  | { type: 'ApprovalRefused'; data: { item_id: string; approver: Approver; code: string; reason: string } }
  | { type: 'ApprovalExpired'; data: { item_id: string; expired_at: string } }
  | { type: 'ItemExecuted'; data: { item_id: string; status: 'ok' | 'failed' | 'denied'; child_run_id?: string; error_code?: string } }
  | { type: 'ArtifactPersisted'; data: { artifact_type: string; artifact_key: string; child_run_id: string; item_id?: string; cycle: number } }
  | { type: 'CycleCompleted'; data: { cycle: number; action_type: string; success: boolean; payload: Record<string, unknown> } };

export interface ProposalRecordedData {
  cycle: number;
  attempt: number;
  /** What the agent answered, verbatim (a string when it was not JSON). */
  raw: unknown;
  verdict: 'valid' | 'invalid';
  action_type: string | null;
  errors: string[];
  warnings: string[];
  /** The contract's validation-error response for an invalid proposal. */
  validation_error?: { is_valid: false; action_type: string | null; error: string; errors: string[] };
  agent: Record<string, unknown>;
}

export interface ToolExecutedData {
  cycle: number;
  call_id: string;
  tool_name: string;
  child_run_id: string;
  status: 'ok' | 'failed' | 'timeout' | 'denied';
  error_code?: string;
  /** FR-007: the controller's own check of the outcome, not the tool's word. */
  verified: boolean;
  check: string;
  lead_id?: string;
}

export interface Task {
  id: string;
  description: string;
  status: TaskStatus;
  preconditions: string[];
}

export interface AuditEntry {
  action_type: string;
  timestamp: string;
  success: boolean;
  payload?: Record<string, unknown>;
}

export interface CampaignState {
  exists: boolean;
  campaign_id: string;
  name: string;
  case_id: string;
  status: CampaignStatus;
  agent: AgentSpec;
  settings: CampaignSettings;
  policy_versions: { lanes: string; roles: string };
  /** The caller whose door created it (CampaignCreated requested_by); absent for a campaign of agents.campaign.*. */
  requested_by?: string;
  tasks: Task[];
  current_task_id: string | null;
  leads: (Lead & { status: LeadStatus })[];
  current_lead_id: string | null;
  /** Each import recorded, by id: the digest of its leads as imported (see importDigest). */
  imports: Record<string, string>;
  artifacts: { artifact_type: string; artifact_key: string }[];
  audit: AuditEntry[];
  /** The cycle under way (started, neither completed nor aborted), or null. */
  open_cycle: { cycle: number; run_id: string; request_run_id?: string; snapshot: unknown; attempts: number; valid_proposal: Record<string, unknown> | null; tool_calls: string[] } | null;
  cycles_started: number;
  /** How many proposals the agent has given so far: the scripted agent's position in its script. */
  proposals_asked: number;
  pending: Record<string, PendingItem>;
}

export type CampaignCommand =
  | { type: 'CreateCampaign'; data: Extract<CampaignEvent, { type: 'CampaignCreated' }>['data'] }
  | { type: 'ImportLeads'; data: { import_id: string; leads: Lead[] } }
  | { type: 'StartCampaign' }
  | { type: 'PauseCampaign'; reason: string }
  | { type: 'BeginCycle'; data: Extract<CampaignEvent, { type: 'CycleStarted' }>['data'] }
  | { type: 'RecordProposal'; data: ProposalRecordedData }
  | { type: 'AbortCycle'; cycle: number; reason: string }
  | { type: 'CreateTask'; data: Extract<CampaignEvent, { type: 'TaskCreated' }>['data'] }
  | { type: 'SelectTask'; cycle: number; task_id: string; reasoning?: string }
  | { type: 'RecordToolOutcome'; data: ToolExecutedData }
  | { type: 'AnalyzeLeads'; cycle: number; analysis_type: string; parameters: Record<string, unknown> }
  | { type: 'RequestApproval'; data: Extract<CampaignEvent, { type: 'ApprovalRequested' }>['data'] }
  | { type: 'DecideItem'; item_id: string; decision: ItemDecision; approver: Approver; answer?: string; now: string; operator_roles: readonly string[] }
  | { type: 'ExpireItems'; now: string }
  | { type: 'RecordItemExecuted'; data: Extract<CampaignEvent, { type: 'ItemExecuted' }>['data']; artifact?: { artifact_type: string; artifact_key: string } }
  | { type: 'RecordArtifact'; data: Extract<CampaignEvent, { type: 'ArtifactPersisted' }>['data'] }
  | { type: 'CompleteCycle'; data: Extract<CampaignEvent, { type: 'CycleCompleted' }>['data']; complete_campaign?: string };

/** A command the campaign's state does not allow; the code crosses the wire. */
export class CampaignRefusal extends Error {
  constructor(readonly code: CampaignRefusalCode, message: string) {
    super(message);
  }
}

export type CampaignRefusalCode =
  | 'CAMPAIGN.NOT_FOUND'
  | 'CAMPAIGN.EXISTS'
  | 'REQUEST.CONFLICT'
  | 'CAMPAIGN.STATE'
  | 'APPROVAL.NOT_FOUND'
  | 'APPROVAL.ALREADY_DECIDED';
