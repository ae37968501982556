/* eslint-disable */
// Generated from proto-contracts/schemas/events/ by scripts/generate-contracts.js. Do not edit by hand.

/**
 * Data of the AgentProfilePublished event (appended by decision). A version of an agent profile, published to the log so runs pin it.
 */
export interface AgentProfilePublishedData {
  id: string;
  version: string;
  sha256: string;
  /**
   * Free-form: the agent profile as published (libs/agent-session profiles).
   */
  profile: {
    [k: string]: unknown;
  };
}

/**
 * Data of the AgentRequested event (appended by decision). A task-assistant request as queued in the durable decision inbox.
 */
export interface AgentRequestedData {
  run_id: string;
  agent_name: string;
  /**
   * Free-form: its shape is the producer's.
   */
  request: {
    [k: string]: unknown;
  };
  caller_context?: boolean;
}

/**
 * Data of the AgentRunRequested event (appended by decision). A governed agent run request as queued in the durable decision inbox.
 */
export interface AgentRunRequestedData {
  /**
   * Free-form: its shape is the producer's.
   */
  spec: {
    [k: string]: unknown;
  };
}

/**
 * Data of the ApprovalDecided event (appended by decision). A campaign item decided by its approver.
 */
export interface ApprovalDecidedData {
  item_id: string;
  decision: 'approved' | 'rejected' | 'answered';
  approver: {
    id: string;
    role: string;
  };
  decided_at: string;
  answer?: string;
}

/**
 * Data of the ApprovalExpired event (appended by decision).
 */
export interface ApprovalExpiredData {
  item_id: string;
  expired_at: string;
}

/**
 * Data of the ApprovalRefused event (appended by decision).
 */
export interface ApprovalRefusedData {
  item_id: string;
  approver: {
    id: string;
    role: string;
  };
  code: string;
  reason: string;
}

/**
 * Data of the ApprovalRequested event (appended by decision). A campaign item waiting for an approval or an answer.
 */
export interface ApprovalRequestedData {
  item_id: string;
  kind: string;
  cycle: number;
  /**
   * Free-form: its shape is the producer's.
   */
  proposal: {
    [k: string]: unknown;
  };
  expires_at: string;
}

/**
 * Data of the ArtifactAccessDenied event (appended by db-write). A refused rl.artifacts.get: who asked, for which artifact, and why.
 */
export interface ArtifactAccessDeniedData {
  artifact_id: string;
  code: string;
  agent_name: string;
  lane: string;
  parent_run_id: string;
  root_run_id: string;
  caller_case_id?: string;
}

/**
 * Data of the ArtifactIngestAudited event (appended by db-write). A caller's input artifact stored through the caller ingress (issue 26).
 */
export interface ArtifactIngestAuditedData {
  action: string;
  outcome: string;
  requested_by: string;
  caller_role?: string;
  grants_version?: string;
  agent_name?: string;
  artifact_ref: ArtifactRef;
  /**
   * Set when the resolver recorded it for an abandoned run.
   */
  resolved_by?: string;
}
/**
 * Contract v1 SSOT binding of one immutable artifact: every run input and output is referenced by one. The bytes live in object storage; sha256 and size_bytes bind the reference to exactly those bytes.
 */
export interface ArtifactRef {
  artifact_id: string;
  /**
   * Lowercase hex sha256 of the artifact bytes.
   */
  sha256: string;
  size_bytes: number;
  media_type: string;
  kind: string;
  /**
   * The case the artifact belongs to; absent for shared-plane artifacts.
   */
  case_id?: string;
  /**
   * Human-facing file name; never used for identity.
   */
  name?: string;
}

/**
 * Data of the ArtifactPersisted event (appended by decision). A campaign artifact persisted through db-write.
 */
export interface ArtifactPersistedData {
  artifact_type: string;
  artifact_key: string;
  child_run_id: string;
  cycle: number;
  item_id?: string;
}

/**
 * Data of the ArtifactStored event (appended by db-write). An artifact put into the object store, bound by its reference, with its first writer: a governed run through rl.artifacts.put (agent, lane, calling run), or a caller through its ingest (requested_by, the artifact_ingest run).
 */
export type ArtifactStoredData = {
  artifact_ref: ArtifactRef;
  backend: string;
  agent_name?: string;
  lane?: string;
  parent_run_id?: string;
  root_run_id?: string;
  /**
   * The caller identity whose ingest stored it (rl.caller.<identity>.artifacts.ingest).
   */
  requested_by?: string;
  /**
   * The artifact_ingest run that records the ingest.
   */
  ingest_run_id?: string;
} & {
  [k: string]: unknown;
};

/**
 * Contract v1 SSOT binding of one immutable artifact: every run input and output is referenced by one. The bytes live in object storage; sha256 and size_bytes bind the reference to exactly those bytes.
 */

/**
 * Data of the AuditChainBatch event (appended by audit-ledger). Consecutive audit-chain entries; the last carries the signed checkpoint anchoring them.
 */
export interface AuditChainBatchData {
  entries: {
    seq: number;
    event_id: string;
    prev_hash: string;
    /**
     * The chained audit event as the ledger read it (libs/governance hash-chain.ts ChainEvent): ids, time and a digest of its data.
     */
    body: {
      event_id: string;
      type: string;
      run_id: string;
    };
    entry_hash: string;
    /**
     * A signed checkpoint of the chain at this entry (schemas/audit/audit-checkpoint.schema.json).
     */
    checkpoint?: {};
  }[];
}

/**
 * Data of the AuditChainEntry event: one audit-chain entry per message, as the audit ledger wrote the chain before it wrote batches (AuditChainBatch). Read forever (recorded histories); no service appends it any more.
 */
export interface AuditChainEntryData {
  seq: number;
  event_id: string;
  prev_hash: string;
  /**
   * The chained audit event as the ledger read it (libs/governance hash-chain.ts ChainEvent): ids, time and a digest of its data.
   */
  body: {
    event_id: string;
    type: string;
    run_id: string;
  };
  entry_hash: string;
  /**
   * A signed checkpoint of the chain at this entry (schemas/audit/audit-checkpoint.schema.json).
   */
  checkpoint?: {};
}

/**
 * Data of the AuditSigningKeyPublished event (appended by audit-ledger). The audit ledger's public signing key.
 */
export interface AuditSigningKeyPublishedData {
  key_id: string;
  algorithm: string;
  public_key_pem: string;
}

/**
 * Data of the AuthzDecided event (appended by decision, tool-gateway, db-write, export, promotion). A choke point's or run start's allow or deny (contract 001 authz_decision).
 */
export interface AuthzDecidedData {
  decision: 'allow' | 'deny';
  lane?: string;
  action?: string;
  code?: string;
  reason?: string;
  policy_versions: {
    lanes: string;
    roles: string;
  };
  inputs?: {
    agent_name: string;
    lane: string;
    kind: string;
    action: string;
    run_case_id?: string;
    target_case_id?: string;
    run_user_id?: string;
    scope_fields: string[];
    scope_case_id?: string;
    scope_user_id?: string;
  };
  /**
   * Set when the resolver recorded it for an abandoned run.
   */
  resolved_by?: string;
}

/**
 * Data of the CampaignCompleted event (appended by decision). A contract-003 campaign completed.
 */
export interface CampaignCompletedData {
  cycle: number;
  details?: string;
}

/**
 * Data of the CampaignCreated event (appended by decision). A contract-003 campaign created.
 */
export interface CampaignCreatedData {
  campaign_id: string;
  name: string;
  case_id: string;
  /**
   * Free-form: the agent spec as created (schemas/campaigns/campaign-create-request.schema.json agent).
   */
  agent: {
    [k: string]: unknown;
  };
  settings: {
    on_invalid: 'retry' | 'abort';
    max_attempts: number;
    approval_ttl_seconds: number;
  };
  /**
   * The caller whose door created the campaign (rl.caller.<identity>.campaign.create): it alone reaches the campaign, under the campaign_id it named (the log's campaign_id is derived from both). Absent: created on agents.campaign.create, reached there only.
   */
  requested_by?: string;
  policy_versions: {
    lanes: string;
    roles: string;
  };
}

/**
 * Data of the CampaignCyclesRequested event (appended by decision). Campaign cycles queued in the durable decision inbox.
 */
export interface CampaignCyclesRequestedData {
  campaign_id: string;
  run_id: string;
  max_cycles: number;
}

/**
 * Data of the CampaignPaused event (appended by decision). A campaign paused.
 */
export interface CampaignPausedData {
  reason: string;
}

/**
 * Data of the CampaignStarted event (appended by decision). A campaign started.
 */
export interface CampaignStartedData {}

/**
 * Data of the ChildRunStarted event (appended by decision). A run opened a child agent run.
 */
export interface ChildRunStartedData {
  child_run_id: string;
  run_kind: 'agent' | 'tool_gateway' | 'db_write' | 'promotion' | 'export' | 'artifact_ingest';
  agent_name: string;
}

/**
 * Data of the CycleAborted event (appended by decision). A campaign cycle aborted.
 */
export interface CycleAbortedData {
  cycle: number;
  reason: string;
}

/**
 * Data of the CycleCompleted event (appended by decision). A campaign cycle completed.
 */
export interface CycleCompletedData {
  cycle: number;
  action_type: string;
  success: boolean;
  /**
   * Free-form: its shape is the producer's.
   */
  payload: {
    [k: string]: unknown;
  };
}

/**
 * Data of the CycleStarted event (appended by decision). A campaign cycle started with its state snapshot.
 */
export interface CycleStartedData {
  cycle: number;
  run_id: string;
  /**
   * The run of the cycle request that opened the cycle: only its cancel may abort the cycle. Absent on cycles opened before it was recorded.
   */
  request_run_id?: string;
  /**
   * Free-form: its shape is the producer's.
   */
  snapshot: {
    [k: string]: unknown;
  };
  snapshot_sha256: string;
  omitted: {
    pending_tasks: number;
    audit_entries: number;
  };
}

/**
 * Data of the DbWriteAudited event (appended by db-write, decision). audit_event.schema.json DbWriteAudited: the lane, action (operation:collection), outcome and request hash, with the document written.
 */
export interface DbWriteAuditedData {
  lane: string;
  action: string;
  outcome: 'success' | 'failure' | 'deny';
  request_hash_sha256: string;
  response_hash_sha256?: string;
  collection?: string | null;
  operation?: string | null;
  document_id?: string | null;
  /**
   * The write's DbResult status (runtime/db-result.schema.json).
   */
  status: 'ok' | 'denied' | 'not_found' | 'failed';
  case_id?: string | null;
  document_sha256?: string | null;
  error_code?: string;
  /**
   * Set when the resolver recorded it for an abandoned run.
   */
  resolved_by?: string;
}

/**
 * Data of the DeadLetterRetried event (appended by audit-ledger). An operator put a dead-lettered message back on its stream.
 */
export interface DeadLetterRetriedData {
  durable: string;
  stream_seq: number;
  new_seq: number;
  requested_by: string;
}

/**
 * Data of the DecisionRecorded event (appended by decision). A task-assistant decision and its audit record.
 */
export interface DecisionRecordedData {
  /**
   * Free-form: its shape is the producer's.
   */
  decision: {
    [k: string]: unknown;
  };
  /**
   * Free-form: its shape is the producer's.
   */
  intent: {
    [k: string]: unknown;
  };
  conversation_effect?: string;
  /**
   * Free-form: its shape is the producer's.
   */
  audit_record: {
    [k: string]: unknown;
  };
}

/**
 * Data of the EffectClaimed event (appended by tool-gateway). A child run's effect is being executed by owner until the lease expires.
 */
export interface EffectClaimedData {
  owner: string;
  attempt: number;
  lease_expires_at: string;
}

/**
 * The data of a EffectReleased event. The owner gave its claim back without an outcome.
 */
export interface EffectReleasedData {
  owner: string;
  attempt: number;
  reason: string;
}

/**
 * Data of the ExportAssembled event (appended by export). audit_event.schema.json export phase 2: the manifest, or the phase failed / not reached.
 */
export interface ExportAssembledData {
  bundle_id: string;
  export_id?: string;
  /**
   * Free-form: the export manifest (libs/governance export/manifest.ts).
   */
  manifest?: {
    [k: string]: unknown;
  };
  manifest_sha256?: string;
  manifest_ref?: ArtifactRef;
  status?: 'failed' | 'not_reached';
  error_code?: string;
  /**
   * Set when the resolver recorded it for an abandoned run.
   */
  resolved_by?: string;
}
/**
 * Contract v1 SSOT binding of one immutable artifact: every run input and output is referenced by one. The bytes live in object storage; sha256 and size_bytes bind the reference to exactly those bytes.
 */

/**
 * Data of the ExportAuthorized event (appended by export). audit_event.schema.json export phase 1: what the export was authorised for.
 */
export interface ExportAuthorizedData {
  bundle_id: string;
  export_id?: string;
  case_id?: string;
  phases?: ('authorize' | 'assemble' | 'finalize')[];
  artifact_count?: number;
  policy_versions?: {
    lanes: string;
    roles: string;
  };
  status?: 'failed';
  error_code?: string;
  /**
   * Set when the resolver recorded it for an abandoned run.
   */
  resolved_by?: string;
}

/**
 * Data of the ExportFinalized event (appended by export). audit_event.schema.json export phase 3: the bundle, receipt and export_bundles record, or the phase failed / not reached.
 */
export interface ExportFinalizedData {
  bundle_id: string;
  export_id?: string;
  bundle?: ArtifactRef;
  bundle_sha256?: string;
  receipt_ref?: ArtifactRef;
  manifest_ref?: ArtifactRef;
  export_bundles_document_id?: string;
  db_write_run_id?: string;
  status?: 'failed' | 'not_reached';
  error_code?: string;
  /**
   * Set when the resolver recorded it for an abandoned run.
   */
  resolved_by?: string;
}
/**
 * Contract v1 SSOT binding of one immutable artifact: every run input and output is referenced by one. The bytes live in object storage; sha256 and size_bytes bind the reference to exactly those bytes.
 */

/**
 * Data of the ItemExecuted event (appended by decision). An approved campaign item executed.
 */
export interface ItemExecutedData {
  item_id: string;
  status: 'ok' | 'failed' | 'denied';
  child_run_id?: string;
  error_code?: string;
}

/**
 * Data of the LeadsAnalyzed event (appended by decision). A campaign analysis of its leads.
 */
export interface LeadsAnalyzedData {
  cycle: number;
  analysis_type: string;
  ranking: string[];
  current_lead_id: string | null;
  scores: {
    [k: string]: number;
  };
}

/**
 * Data of the LeadsImported event (appended by decision). Leads imported into a campaign.
 */
export interface LeadsImportedData {
  import_id: string;
  leads: {
    id: string;
    full_name: string;
    profile_url: string;
    job_title?: string;
    company?: string;
    weight_score?: number;
  }[];
}

/**
 * Data of the MessageDeadLettered event (appended by decision, tool-gateway, db-write, audit-ledger, promotion, export, intent-classification). A poison message, recorded before it is terminated (the log keeps everything).
 */
export interface MessageDeadLetteredData {
  durable: string;
  stream_seq: number;
  subject: string;
  deliveries: number;
  reason: string;
  error_code: string;
}

/**
 * Data of the MessageExchanged event (appended by decision). One exchange of a task-assistant conversation.
 */
export interface MessageExchangedData {
  run_id: string;
  user_message: string;
  assistant_message: string;
  at: string;
  /**
   * Free-form: the pending confirmation after the exchange, or null.
   */
  pending_confirmation: {
    [k: string]: unknown;
  };
  based_on_run_id: null | string;
}

/**
 * Data of the OperatorActionDecided event (appended by decision and audit-ledger on rl.log.operator.<identity>, issue 25). An operator action (cancel, fork, resolver sweep, dead-letter retry, approve, reject, answer) checked against the operators' roles policy (policy/operators.yaml) before it runs: the identity the request came from, its role, the person it acts for and why, the policy version, and whether it was granted; a refusal is answered OPERATOR.ACTION_NOT_GRANTED and nothing else happens.
 */
export interface OperatorActionDecidedData {
  action: 'cancel' | 'fork' | 'resolve' | 'deadletter_retry' | 'approve' | 'reject' | 'answer';
  /**
   * The operator NATS identity: operator, the only identity deploy/nats/permissions.yaml lets publish the operator subjects (earlier events: the identity the request's reply inbox named, or unknown).
   */
  identity: string;
  /**
   * The identity's role in the policy; null when it has none.
   */
  role: string | null;
  /**
   * The person the identity acts for, as the request names them.
   */
  requested_by: string;
  reason?: string;
  /**
   * What the action is on: run_id, dead_letter_id, campaign_id and item_id.
   */
  target: {
    [k: string]: string;
  };
  policy_version: string;
  granted: boolean;
  error_code?: 'OPERATOR.ACTION_NOT_GRANTED';
  message?: string;
}

/**
 * Data of the PolicyFilePublished event (appended by export, tool-gateway, db-write, promotion, decision; operators also by audit-ledger). A policy file version (lanes, roles; operators: the operators' roles), published to the log so runs pin it and a version keeps one content.
 */
export interface PolicyFilePublishedData {
  file: string;
  version: string;
  yaml: string;
}

/**
 * Data of the PromotionAudited event (appended by promotion). audit_event.schema.json PromotionAudited: the lane, outcome, the run's inputs and outputs, and what the screen read.
 */
export interface PromotionAuditedData {
  lane: string;
  outcome: 'promoted' | 'refused' | 'failed';
  status: 'promoted' | 'refused' | 'failed' | 'ok';
  input_artifacts: ArtifactRef[];
  output_artifacts: ArtifactRef[];
  target?: string;
  promotion_id?: string;
  promotion_ticket_id?: string;
  ticket_id?: string;
  ticket_artifact?: ArtifactRef;
  source_case_id?: string;
  source_artifacts?: ArtifactRef[];
  screened_artifact_count?: number;
  unscreened_artifact_ids?: string[];
  findings_count?: number;
  shared_document_id?: string;
  error_code?: string;
  /**
   * Set when the resolver recorded it for an abandoned run.
   */
  resolved_by?: string;
}
/**
 * Contract v1 SSOT binding of one immutable artifact: every run input and output is referenced by one. The bytes live in object storage; sha256 and size_bytes bind the reference to exactly those bytes.
 */

/**
 * Data of the PromotionRefused event (appended by promotion). A promotion candidate refused by the screen, with its findings.
 */
export interface PromotionRefusedData {
  target: string;
  promotion_id: string;
  promotion_ticket_id: string;
  ticket_id: string;
  ticket_artifact: ArtifactRef;
  source_case_id?: string;
  source_artifacts: ArtifactRef[];
  screened_artifact_count: number;
  unscreened_artifact_ids: string[];
  rules: string[];
  findings: {
    rule: string;
    evidence: string;
  }[];
}
/**
 * Contract v1 SSOT binding of one immutable artifact: every run input and output is referenced by one. The bytes live in object storage; sha256 and size_bytes bind the reference to exactly those bytes.
 */

/**
 * Data of the ProposalRecorded event (appended by decision). A campaign agent's proposal and the controller's verdict.
 */
export interface ProposalRecordedData {
  cycle: number;
  attempt: number;
  /**
   * Free-form: its shape is the producer's.
   */
  raw: {
    [k: string]: unknown;
  };
  verdict: 'valid' | 'invalid';
  action_type: null | string;
  errors: string[];
  warnings: string[];
  /**
   * Free-form: its shape is the producer's.
   */
  agent: {
    [k: string]: unknown;
  };
  validation_error?: {
    is_valid: boolean;
    action_type: null | string;
    error: string;
    errors: string[];
  };
}

/**
 * Data of the RunCancelRequested event (appended by the run's owner: decision, or the choke point on decision's rl.runs.control request; by decision on any run before issue 23). An operator's or caller's cancel request; the run's worker answers it with RunCancelled.
 */
export interface RunCancelRequestedData {
  reason: string;
  requested_by: string;
}

/**
 * Data of the RunCancelled event (appended by decision). Terminal: the run was cancelled.
 */
export interface RunCancelledData {
  reason: string;
}

/**
 * Data of the RunCompleted event (appended by db-write, tool-gateway, decision, export, promotion). Terminal: the run succeeded (contract 001 §2.2).
 */
export interface RunCompletedData {
  output_artifacts: ArtifactRef[];
  response_hash_sha256?: string;
  /**
   * Free-form: the run's result.
   */
  result?: {
    [k: string]: unknown;
  };
}
/**
 * Contract v1 SSOT binding of one immutable artifact: every run input and output is referenced by one. The bytes live in object storage; sha256 and size_bytes bind the reference to exactly those bytes.
 */

/**
 * Data of the RunCreated event (appended by decision, tool-gateway, db-write, export, promotion). Everything pinned at run start (contract 001 §1).
 */
export interface RunCreatedData {
  run_id: string;
  run_kind: 'agent' | 'tool_gateway' | 'db_write' | 'promotion' | 'export' | 'artifact_ingest';
  agent_name: string;
  parent_run_id?: string;
  root_run_id: string;
  correlation_id?: string;
  case_id?: string;
  user_id?: string;
  conversation_id?: string;
  lane?: string;
  contract_version: 'v1';
  policy_versions: {
    lanes: string;
    roles: string;
  };
  input_artifacts: ArtifactRef[];
  /**
   * Free-form: the run's parameters as its caller gave them (hashable).
   */
  parameters: {
    [k: string]: unknown;
  };
  request_hash_sha256: string;
  /**
   * The caller identity whose request opened the run (issue 26).
   */
  requested_by?: string;
  /**
   * A fork (rl.runs.fork): the source run and the checkpoint (its step id) whose recorded step outputs the fork restores by reference, read from the source's events; request_id is the operator's idempotency key, requested_by who asked.
   */
  forked_from?: {
    run_id: string;
    checkpoint: string;
    request_id: string;
    requested_by?: string;
  };
}
/**
 * Contract v1 SSOT binding of one immutable artifact: every run input and output is referenced by one. The bytes live in object storage; sha256 and size_bytes bind the reference to exactly those bytes.
 */

/**
 * Data of the RunDenied event (appended by tool-gateway, db-write, decision, promotion, export). Terminal: the run was denied.
 */
export interface RunDeniedData {
  error: {
    error_code: string;
    message: string;
    retryable: boolean;
  };
}

/**
 * Data of the RunFailed event (appended by decision, promotion, tool-gateway). Terminal: the run failed.
 */
export interface RunFailedData {
  error: {
    error_code: string;
    /**
     * Sealed in the log with the owner's data key (README "Erasure"): a failed sub-agent's or model's error can quote the user's input. Reads "[erased]" once the key is destroyed; a run of an erased owner still ends, with this text stored as "[erased]".
     */
    message: string;
    retryable: boolean;
  };
}

/**
 * Data of the RunResolved event (appended by the run's owner: decision for its own runs, the choke point for its runs on decision's rl.runs.control request; by decision on any run before issue 23). The resolver ended an abandoned run: who, why and on what basis.
 */
export interface RunResolvedData {
  resolved_by: string;
  reason: string;
  outcome: 'completed' | 'failed' | 'denied';
  basis: string;
}

/**
 * Data of the RunStarted event (appended by decision, tool-gateway, db-write, export, promotion). The run began its work (after an allow).
 */
export interface RunStartedData {}

/**
 * Data of the SessionAccounted event (appended by decision). An agent session's accounting entry.
 */
export interface SessionAccountedData {
  index: number;
  /**
   * Free-form: its shape is the producer's.
   */
  entry: {
    [k: string]: unknown;
  };
}

/**
 * Data of the SessionFinished event (appended by decision). An agent session finished.
 */
export interface SessionFinishedData {
  success: boolean;
  /**
   * Free-form: its shape is the producer's.
   */
  finalReport?: {
    [k: string]: unknown;
  };
  /**
   * Free-form: its shape is the producer's.
   */
  conversation?: {
    [k: string]: unknown;
  };
  /**
   * Free-form: the error, when it failed.
   */
  error?: {
    [k: string]: unknown;
  };
}

/**
 * Data of the SessionLlmCompleted event (appended by decision until issue 21 carried sessions on the run engine; a session now journals StepCompleted and ToolCallRequested/ToolCallRecorded; still read, and resumed from). An agent session's model call completed.
 */
export interface SessionLlmCompletedData {
  seq: number;
  provider: string;
  model: string;
  latency_ms: number;
  /**
   * Free-form: its shape is the producer's.
   */
  result: {
    [k: string]: unknown;
  };
}

/**
 * Data of the SessionLlmRequested event (appended by decision until issue 21 carried sessions on the run engine; a session now journals StepCompleted and ToolCallRequested/ToolCallRecorded; still read, and resumed from). An agent session's model call requested.
 */
export interface SessionLlmRequestedData {
  seq: number;
  provider: string;
  model: string;
  expected_tokens: number;
  messages: number;
  tools: string[];
}

/**
 * Data of the SessionNoted event (appended by decision). An agent session's journal note.
 */
export interface SessionNotedData {
  index: number;
  /**
   * Free-form: its shape is the producer's.
   */
  entry: {
    [k: string]: unknown;
  };
}

/**
 * Data of the SessionRequested event (appended by decision). An agent session request as queued.
 */
export interface SessionRequestedData {
  /**
   * Free-form: its shape is the producer's.
   */
  spec: {
    [k: string]: unknown;
  };
}

/**
 * Data of the SessionStarted event (appended by decision). An agent session started with its tools.
 */
export interface SessionStartedData {
  tools: {
    name: string;
  }[];
  nonce: string;
  missing_tools: string[];
}

/**
 * Data of the SessionToolCompleted event (appended by decision until issue 21 carried sessions on the run engine; a session now journals StepCompleted and ToolCallRequested/ToolCallRecorded; still read, and resumed from). An agent session's tool call completed.
 */
export interface SessionToolCompletedData {
  seq: number;
  call_id: string;
  name: string;
  latency_ms: number;
  /**
   * Free-form: its shape is the producer's.
   */
  execution: {
    [k: string]: unknown;
  };
}

/**
 * Data of the SessionToolRequested event (appended by decision until issue 21 carried sessions on the run engine; a session now journals StepCompleted and ToolCallRequested/ToolCallRecorded; still read, and resumed from). An agent session's tool call requested.
 */
export interface SessionToolRequestedData {
  seq: number;
  call_id: string;
  name: string;
  /**
   * Free-form: its shape is the producer's.
   */
  args: {
    [k: string]: unknown;
  };
}

/**
 * The data of a StepCompensated event. A workflow step undone on rollback (contract 004).
 */
export interface StepCompensatedData {
  step_index: number;
  step_id: string;
  /**
   * Free-form: the compensated step's output.
   */
  output?: {
    [k: string]: unknown;
  };
}

/**
 * Data of the StepCompleted event (appended by decision). A journaled step and its output (the run engine).
 */
export interface StepCompletedData {
  step_index: number;
  step_id: string;
  /**
   * Free-form: the step's output.
   */
  output: {
    [k: string]: unknown;
  };
  /**
   * Free-form: the checkpointed context.
   */
  context?: {
    [k: string]: unknown;
  };
  /**
   * Free-form: the memory checkpoint.
   */
  memory_snapshot?: {
    [k: string]: unknown;
  };
  /**
   * Every workflow step failed so far under continueOnError (cumulative: the last event is enough).
   */
  failed_step_ids?: string[];
}

/**
 * Data of the TaskCreated event (appended by decision). A campaign task created.
 */
export interface TaskCreatedData {
  cycle: number;
  task_id: string;
  description: string;
  preconditions: string[];
  justification?: string;
  warnings: string[];
}

/**
 * Data of the TaskSelected event (appended by decision). A campaign task selected.
 */
export interface TaskSelectedData {
  cycle: number;
  task_id: string;
  reasoning?: string;
}

/**
 * Data of the TaskSelectionRefused event (appended by decision). A campaign task selection refused (its preconditions are not done).
 */
export interface TaskSelectionRefusedData {
  cycle: number;
  task_id: string;
  reason: string;
}

/**
 * Data of the TaskStatusChanged event (appended by decision). A campaign task's status changed on a verified outcome.
 */
export interface TaskStatusChangedData {
  task_id: string;
  from: string;
  to: string;
  verified_by: {
    cycle: number;
    tool_name: string;
    child_run_id: string;
    check: string;
  };
}

/**
 * Data of the ToolCallAudited event (appended by tool-gateway, decision). audit_event.schema.json ToolCallAudited: the lane, action (the tool), outcome and request hash, with what the gateway measured.
 */
export interface ToolCallAuditedData {
  lane: string;
  action: string;
  outcome: 'success' | 'failure' | 'deny';
  request_hash_sha256: string;
  response_hash_sha256?: string;
  tool_name?: string | null;
  call_id?: string | null;
  status: 'ok' | 'failed' | 'timeout';
  error_code?: string;
  input_sha256?: string;
  output_sha256?: string;
  truncated?: boolean;
  original_bytes?: number;
  duration_ms?: number;
  /**
   * Set when the resolver recorded it for an abandoned run.
   */
  resolved_by?: string;
}

/**
 * Data of the ToolCallRecorded event (appended by decision). The outcome of a run's tool call, as the gateway answered.
 */
export interface ToolCallRecordedData {
  call_id: string;
  child_run_id: string;
  status: 'ok' | 'failed' | 'timeout' | 'denied';
  /**
   * Free-form: the tool's output.
   */
  result?: {
    [k: string]: unknown;
  };
  error?: {
    error_code: string;
    /**
     * Sealed in the log with the owner's data key (README "Erasure"): a tool's failure text can quote its input. Reads "[erased]" once the key is destroyed.
     */
    message: string;
    retryable: boolean;
  };
}

/**
 * Data of the ToolCallRequested event (appended by decision). A run asks the tool gateway for a call (recorded before it is made).
 */
export interface ToolCallRequestedData {
  call_id: string;
  sequence: number;
  tool_name: string;
  /**
   * Free-form: the tool's input.
   */
  parameters: {
    [k: string]: unknown;
  };
  child_run_id: string;
}

/**
 * Data of the ToolExecuted event (appended by decision). A campaign cycle's tool call and the controller's check of it.
 */
export interface ToolExecutedData {
  cycle: number;
  call_id: string;
  tool_name: string;
  child_run_id: string;
  status: 'ok' | 'failed' | 'timeout' | 'denied';
  verified: boolean;
  check: string;
  lead_id?: string;
  error_code?: string;
}
