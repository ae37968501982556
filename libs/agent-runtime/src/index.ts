/**
 * @runledger/agent-runtime — the pure agent domain (contracts 003 and 004):
 * profiles and registry, selection, workflows with checkpoints, delegation,
 * tool results, ability injection, and the controller ↔ agent proposal contract.
 * No I/O, no clock, no randomness: time, effects and concurrency come in from callers.
 */
export type { Ok, Err, Result } from './shared/result';
export { freezeDeep, toFrozenData, type DeepReadonly } from './shared/freeze';
export { normalizeText } from './shared/text';

// Profiles and registry (INV-AGT-001, INV-AGT-002, INV-AGT-SEL-004)
export {
  AGENT_ID_PATTERN,
  AGENT_PROFILE_SCHEMA,
  DEFAULT_MAX_DELEGATION_DEPTH,
  maxDelegationDepthOf,
  parseAgentProfile,
  type AgentProfile,
  type AgentProfileInput,
  type ProfileErrorCode,
} from './profile/agent-profile';
export { AgentRegistry, type RegistryErrorCode } from './profile/agent-registry';
export { STANDARD_AGENT_ID, STANDARD_AGENT_PROFILE } from './profile/standard-agent';

// Selection (INV-AGT-SEL-001..006)
export {
  SELECTION_WEIGHTS,
  clampConfidence,
  scoreAgent,
  selectAgents,
  type AgentScore,
  type AgentSelection,
  type SelectionContext,
} from './selection/select-agents';

// Workflows and checkpoints (INV-AGT-003, INV-PE-001..003, INV-CP-001..002)
export type { Checkpoint, FailureStrategy, WorkflowStep } from './workflow/types';
export { planWorkflow, type PlanErrorCode, type WorkflowPlan } from './workflow/plan';
export { runWorkflow } from './workflow/run-workflow';
export type {
  RunWorkflowOptions,
  StepContext,
  StepFailure,
  WorkflowRan,
  WorkflowRejected,
  WorkflowRejectionCode,
  WorkflowResult,
} from './workflow/run-types';
export {
  checkpointInitial,
  checkpointToEvent,
  evolveCheckpoint,
  validateCheckpoint,
  type CheckpointErrorCode,
  type CheckpointEvent,
  type StepCompletedEvent,
} from './workflow/checkpoint';

// Delegation (INV-DT-001..002)
export {
  DelegationChain,
  type DelegationChainData,
  type DelegationErrorCode,
  type DelegationResult,
} from './delegation/delegation-chain';

// Tools (INV-TOOL-001..003)
export {
  createToolResult,
  toolFailure,
  toolSuccess,
  type KnownToolErrorCode,
  type ToolError,
  type ToolErrorCode,
  type ToolExecutionResult,
  type ToolResultSpec,
} from './tools/tool-result';
export {
  ToolRegistry,
  createInputValidator,
  type RegisteredTool,
  type ToolDefinition,
  type ToolRegistryErrorCode,
} from './tools/tool-registry';
export { executeTool } from './tools/execute-tool';

// Abilities (INV-AGT-ABL-001..003)
export {
  ABILITY_SEPARATOR,
  coreAbilityTokens,
  defaultEstimateTokens,
  injectAbilities,
  type Ability,
  type AbilityErrorCode,
  type AbilityInjection,
  type AbilityInjectionError,
  type InjectAbilitiesInput,
} from './abilities/inject-abilities';
export { preparePrompt, type ChatMessage, type PreparedPrompt, type PreparePromptInput } from './abilities/prepare-prompt';

// Controller ↔ agent proposals (contract 003)
export {
  ACTION_TYPES,
  EXECUTE_TOOL_NAMES,
  MESSAGE_MAX_LENGTH,
  PROPOSAL_SCHEMAS,
  SNAPSHOT_MAX_AUDIT_ENTRIES,
  SNAPSHOT_MAX_PENDING_TASKS,
  STATE_SNAPSHOT_SCHEMA,
  VALIDATION_ERROR_SCHEMA,
  isActionType,
  type ActionType,
} from './proposals/schemas';
export {
  toValidationErrorResponse,
  validateProposal,
  type InvalidProposal,
  type ProposalValidationResult,
  type ValidProposal,
} from './proposals/validate-proposal';
export {
  buildStateSnapshot,
  validateStateSnapshot,
  type BuiltSnapshot,
  type SnapshotErrorCode,
  type StateSnapshotSource,
} from './proposals/state-snapshot';
export type * from './proposals/types';
