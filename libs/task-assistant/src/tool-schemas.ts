/**
 * Input JSON Schemas (draft-07) of the five task tools, for the tool gateway
 * and for Output validation ("Parameters must match tool schema").
 * task_id uses a `pattern` rather than `format: uuid` so any draft-07 validator
 * enforces it without a formats plugin.
 */
import { VISIBLE_TEXT_PATTERN } from './text';
import type { ToolName } from './types';

/** Canonical 8-4-4-4-12 hex UUID. */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** Task description bounds (Input validation: task description 1-1000 chars). */
export const DESCRIPTION_MIN = 1;
export const DESCRIPTION_MAX = 1000;

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
const userId = { type: 'string', minLength: 1 } as const;
const taskId = { type: 'string', pattern: UUID_PATTERN } as const;
// A description that shows nothing is no description: the engine's rule (hasVisibleText), so the gateway refuses it too.
const description = { type: 'string', minLength: DESCRIPTION_MIN, maxLength: DESCRIPTION_MAX, pattern: VISIBLE_TEXT_PATTERN } as const;

function schema(title: string, properties: Record<string, object>, required: string[]): object {
  return { $schema: DRAFT_07, title, type: 'object', properties, required, additionalProperties: false };
}

/** Tool input schemas, keyed by tool name. */
export const TASK_TOOL_SCHEMAS: Readonly<Record<ToolName, object>> = {
  add_task: schema('add_task input', { user_id: userId, description }, ['user_id', 'description']),
  list_tasks: schema('list_tasks input', { user_id: userId, include_completed: { type: 'boolean' } }, ['user_id']),
  update_task: schema('update_task input', { user_id: userId, task_id: taskId, new_description: description }, [
    'user_id',
    'task_id',
    'new_description',
  ]),
  complete_task: schema('complete_task input', { user_id: userId, task_id: taskId }, ['user_id', 'task_id']),
  delete_task: schema('delete_task input', { user_id: userId, task_id: taskId }, ['user_id', 'task_id']),
};

/** The allowed tools, in contract order. */
export const TOOL_NAMES: readonly ToolName[] = ['add_task', 'list_tasks', 'update_task', 'complete_task', 'delete_task'];
