// The message types of the public subjects, generated from proto-contracts/ (libs/contracts/src/generated). The
// package build copies the generated files into the package, so it ships them without depending on the monorepo.
export type {
  AgentDecisionReply, AgentRunRequest, AgentRunResponse, ArtifactGetResult, ArtifactIngestRequest, ArtifactRef,
  CallerRun, CallerRunEvents, CampaignCommandRequest, CampaignCreateRequest, CampaignLeadsImportRequest, CampaignView,
  DecisionContext, RunCancelResult, RunError, SessionGetRequest, SessionReply, SessionStartRequest,
} from '../../contracts/src/generated/index.js';
