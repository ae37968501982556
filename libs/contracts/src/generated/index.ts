/* eslint-disable */
// Generated from proto-contracts/schemas/*/ by scripts/generate-contracts.js. Do not edit by hand.

export type {
  AuditCheckpoint,
  AuditHead,
  AuditQuery,
  AuditVerification,
  DecisionAuditRecord,
} from './audit.generated';
export type {
  CampaignAnswerRequest,
  CampaignApprover,
  CampaignCommandRequest,
  CampaignCreateRequest,
  ScriptedAgentSpec,
  LlmAgentSpec,
  SessionAgentSpec,
  CampaignSettingsInput,
  CampaignLeadsImportRequest,
  CampaignLeadInput,
  CampaignView,
  CampaignTaskView,
  CampaignLeadView,
  CampaignItemView,
  CampaignCycleOutcome,
} from './campaigns.generated';
export type {
  ArtifactRef,
  AuditEvent,
  Id,
  Sha256,
  ExportBundle,
  ArtifactRef1,
  ArtifactRef2,
  Name,
  ToolName,
  CollectionOp,
  ScopeField,
  Prohibition,
  LanesPolicy,
  Lane,
  RolesPolicy,
  Role,
  RunRecord,
  PolicyVersions,
} from './governance.generated';
export type {
  AgentRunRequest,
  TaxonomyVersions,
  AgentRunResponse,
  RunError,
  ArtifactGetRequest,
  GovernanceScope,
  ArtifactGetResult,
  ArtifactPutRequest,
  ExportRequest,
  ExportResult,
  PromotionRequest,
  PromotionCandidate,
  PromotionResult,
  PromotionFindingView,
} from './governed-runs.generated';
export type {
  DeadLetterRetryRequest,
  DeadLetter,
  DeadLettersListResult,
} from './operations.generated';
export type {
  AnalyzeLeadsProposal,
  CreateTaskProposal,
  ExecuteToolProposal,
  GenerateMessageProposal,
  NoOpProposal,
  PersistArtifactProposal,
  RequestUserInputProposal,
  SelectNextTaskProposal,
  StateSnapshot,
  ValidationError,
} from './proposals.generated';
export type {
  LogRecord,
  LogEvent,
  LogEventMetadata,
  RunCancelRequest,
  RunCancelResult,
  RunQuery,
  RunSummary,
  RunsListRequest,
  RunsListResult,
} from './runs.generated';
export type {
  DbReadRequest,
  DbResult,
  DbWriteRequest,
  ToolInvocationResult,
  ToolInvocation,
  TranscriptionResult,
  TranscriptSegment,
} from './runtime.generated';
export type {
  SessionGetRequest,
  SessionReply,
  SessionAgentResult,
  SessionUsageTotals,
  SessionStartRequest,
  ToolListReply,
  ToolDescriptor,
} from './sessions.generated';
export type {
  AgentDecisionReply,
  DecisionToolCall,
  ClassifyIntentRequest,
  HistoryMessage,
  DecisionContext,
  PendingConfirmation,
  UserIntentReply,
  IntentModelCall,
} from './task-assistant.generated';
