// The JSON files under proto-contracts/ are the single source of the controller ↔
// agent contract (003); this module only loads and compiles them.
import analyzeLeads from '../../../../proto-contracts/schemas/proposals/analyze-leads.schema.json';
import createTask from '../../../../proto-contracts/schemas/proposals/create-task.schema.json';
import executeTool from '../../../../proto-contracts/schemas/proposals/execute-tool.schema.json';
import generateMessage from '../../../../proto-contracts/schemas/proposals/generate-message.schema.json';
import noOp from '../../../../proto-contracts/schemas/proposals/no-op.schema.json';
import persistArtifact from '../../../../proto-contracts/schemas/proposals/persist-artifact.schema.json';
import requestUserInput from '../../../../proto-contracts/schemas/proposals/request-user-input.schema.json';
import selectNextTask from '../../../../proto-contracts/schemas/proposals/select-next-task.schema.json';
import stateSnapshot from '../../../../proto-contracts/schemas/proposals/state-snapshot.schema.json';
import validationError from '../../../../proto-contracts/schemas/proposals/validation-error.schema.json';
import { contractValidator } from '@runledger/contract-schemas';
import type { ValidateFunction } from '../shared/schema';

export const ACTION_TYPES = [
  'create_task',
  'select_next_task',
  'execute_tool',
  'generate_message',
  'analyze_leads',
  'request_user_input',
  'persist_artifact',
  'no_op',
] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

export const PROPOSAL_SCHEMAS: Readonly<Record<ActionType, object>> = {
  create_task: createTask,
  select_next_task: selectNextTask,
  execute_tool: executeTool,
  generate_message: generateMessage,
  analyze_leads: analyzeLeads,
  request_user_input: requestUserInput,
  persist_artifact: persistArtifact,
  no_op: noOp,
};
export const STATE_SNAPSHOT_SCHEMA: object = stateSnapshot;
export const VALIDATION_ERROR_SCHEMA: object = validationError;

/** Limits the business layer restates, read from the schemas so they cannot drift. */
export const EXECUTE_TOOL_NAMES: readonly string[] = executeTool.properties.tool_name.enum;
export const MESSAGE_MAX_LENGTH: number = generateMessage.properties.message.properties.content.maxLength;
export const SNAPSHOT_MAX_PENDING_TASKS: number = stateSnapshot.properties.pending_tasks.maxItems;
export const SNAPSHOT_MAX_AUDIT_ENTRIES: number = stateSnapshot.properties.recent_audit_log.maxItems;

export function isActionType(value: unknown): value is ActionType {
  return typeof value === 'string' && (ACTION_TYPES as readonly string[]).includes(value);
}

const PROPOSAL_PATHS: Readonly<Record<ActionType, string>> = Object.fromEntries(
  ACTION_TYPES.map((t) => [t, `schemas/proposals/${t.replace(/_/g, '-')}.schema.json`]),
) as Record<ActionType, string>;

/**
 * The compiled proposal schema of an action type (the one contract validator). Proposals are validated with
 * defaults applied (requires_approval: true) on a private copy, so the controller sees the approval flag explicitly.
 */
export function proposalValidator(type: ActionType): ValidateFunction {
  return contractValidator(PROPOSAL_PATHS[type], 'defaults');
}

/** The compiled state-snapshot schema. */
export function snapshotValidator(): ValidateFunction {
  return contractValidator('schemas/proposals/state-snapshot.schema.json');
}
