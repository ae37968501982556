/**
 * @runledger/task-assistant — pure domain of contract 000 (task-assistant decision engine).
 * No I/O, no clock, no randomness: time and ids come in as data.
 */
export type {
  AgentDecision, AuditRecord, ConversationEffect, DecisionContext, DecisionType, HistoryMessage, IntentType,
  PendingAction, PendingConfirmation, Task, ToolCall, ToolName, ToolOutcome, TurnStep, UserIntent,
} from './types';
export { classifyIntent, CONFIDENCE } from './classify';
export { validateContext, MESSAGE_MAX, type ShapeCheck } from './validate-input';
export { nextStep } from './next-step';
export { isPendingLive, createPendingConfirmation, PENDING_CONFIRMATION_TTL_MS } from './pending';
export { validateDecision, DECISION_TYPES } from './validate-output';
export { buildAuditRecord, NOT_CLASSIFIED, RESPONSE_PREVIEW_CHARS } from './audit';
export { TASK_TOOL_SCHEMAS, TOOL_NAMES, UUID_PATTERN, DESCRIPTION_MIN, DESCRIPTION_MAX } from './tool-schemas';
export { VISIBLE_TEXT_PATTERN } from './text';
export { TEMPLATES, FAILURE_ACTIONS, formatNumberedList } from './templates';
export { resolveTaskReference, type Resolution, type ResolutionRule } from './resolve';
