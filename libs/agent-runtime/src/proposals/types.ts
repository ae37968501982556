// Types of the 003 contract, written to match proto-contracts/schemas/proposals/*.
// (The repository has no schema-to-type generator yet; replace with *.generated.ts when it does.)

export type Uuid = string;

export interface StateSnapshot {
  campaign: { id: Uuid; name: string; status: 'initializing' | 'active' | 'paused' | 'completed' | 'error' };
  current_task: null | {
    id: Uuid;
    description: string;
    status: 'pending' | 'in-progress' | 'done' | 'blocked';
    preconditions?: Uuid[];
  };
  /** At most 10. */
  pending_tasks: PendingTask[];
  leads_summary: {
    total: number;
    pending: number;
    contacted: number;
    responded: number;
    current_lead: null | {
      id: Uuid;
      full_name: string;
      profile_url: string;
      job_title?: string;
      company?: string;
      weight_score?: number;
    };
  };
  /** At most 5. */
  recent_audit_log: AuditLogEntry[];
  available_artifacts?: { artifact_type: string; artifact_key: string }[];
}

export interface PendingTask {
  id: Uuid;
  description: string;
}

export interface AuditLogEntry {
  action_type: string;
  /** RFC 3339 date-time. */
  timestamp: string;
  success: boolean;
  payload?: Record<string, unknown>;
}

export interface CreateTaskProposal {
  action_type: 'create_task';
  task: { description: string; preconditions?: Uuid[] };
  justification?: string;
}
export interface SelectNextTaskProposal {
  action_type: 'select_next_task';
  task_id: Uuid;
  reasoning?: string;
}
export interface ExecuteToolProposal {
  action_type: 'execute_tool';
  tool_name: 'browser_navigate' | 'browser_click' | 'browser_type' | 'send_message' | 'python_execute';
  parameters: Record<string, unknown>;
  expected_outcome?: string;
}
export interface GenerateMessageProposal {
  action_type: 'generate_message';
  message: {
    type: 'connection_request' | 'follow_up' | 'direct_message';
    content: string;
    personalization_context?: Record<string, unknown>;
  };
  /** Defaults to true; a validated proposal always carries it. */
  requires_approval: boolean;
}
export interface AnalyzeLeadsProposal {
  action_type: 'analyze_leads';
  analysis_type: 'prioritize' | 'categorize' | 'score_update';
  parameters?: Record<string, unknown>;
}
export interface RequestUserInputProposal {
  action_type: 'request_user_input';
  question: string;
  options?: string[];
  context?: string;
}
export interface PersistArtifactProposal {
  action_type: 'persist_artifact';
  artifact: {
    artifact_type: 'job_posting' | 'scoring_algorithm' | 'python_script' | 'analysis_result';
    artifact_key: string;
    content: Record<string, unknown>;
  };
  /** Defaults to true; a validated proposal always carries it. */
  requires_approval: boolean;
}
export interface NoOpProposal {
  action_type: 'no_op';
  reason: 'awaiting_user_input' | 'preconditions_not_met' | 'rate_limit_reached' | 'campaign_complete';
  details?: string;
}

export type AgentProposal =
  | CreateTaskProposal
  | SelectNextTaskProposal
  | ExecuteToolProposal
  | GenerateMessageProposal
  | AnalyzeLeadsProposal
  | RequestUserInputProposal
  | PersistArtifactProposal
  | NoOpProposal;

/** Response body for a rejected proposal (validation-error.schema.json). */
export interface ValidationErrorResponse {
  is_valid: false;
  action_type: string | null;
  error: string;
  errors: string[];
}
