import { isPlainObject, type DeepReadonly } from '../shared/freeze';
import { codePointLength } from '../shared/text';
import { EXECUTE_TOOL_NAMES, MESSAGE_MAX_LENGTH, type ActionType } from './schemas';
import type { StateSnapshot } from './types';

export interface RuleViolation {
  /** JSON pointer of the offending value; a schema error at the same place is superseded. */
  readonly path: string;
  readonly message: string;
}

export interface BusinessCheck {
  readonly errors: RuleViolation[];
  readonly warnings: string[];
}

/**
 * The business layer of 003. Runs even when the schema layer failed (validation
 * is total: the agent gets every reason at once), so every rule reads defensively.
 */
export function checkBusinessRules(actionType: ActionType, proposal: Record<string, unknown>, snapshot?: DeepReadonly<StateSnapshot>): BusinessCheck {
  const errors: RuleViolation[] = [];
  const warnings: string[] = [];
  switch (actionType) {
    case 'execute_tool': {
      const tool = proposal['tool_name'];
      if (typeof tool === 'string' && !EXECUTE_TOOL_NAMES.includes(tool)) {
        errors.push({
          path: '/tool_name',
          message: `/tool_name tool '${tool}' is not an allowed tool (allowed: ${EXECUTE_TOOL_NAMES.join(', ')})`,
        });
      }
      break;
    }
    case 'select_next_task': {
      const taskId = proposal['task_id'];
      if (typeof taskId !== 'string') break;
      if (snapshot === undefined) {
        warnings.push(`select_next_task: task '${taskId}' was not checked against a state snapshot`);
        break;
      }
      const known = [snapshot.current_task?.id, ...snapshot.pending_tasks.map((t) => t.id)];
      if (!known.includes(taskId)) {
        errors.push({
          path: '/task_id',
          message: `/task_id task '${taskId}' is neither the current task nor a pending task in the state snapshot`,
        });
      }
      break;
    }
    case 'generate_message': {
      const message = proposal['message'];
      const content = isPlainObject(message) ? message['content'] : undefined;
      if (typeof content === 'string' && codePointLength(content) > MESSAGE_MAX_LENGTH) {
        errors.push({
          path: '/message/content',
          message: `/message/content is ${codePointLength(content)} characters; LinkedIn allows at most ${MESSAGE_MAX_LENGTH}`,
        });
      }
      break;
    }
    case 'create_task': {
      const justification = proposal['justification'];
      if (typeof justification !== 'string' || justification.trim().length === 0) {
        warnings.push('create_task: no justification given; the controller cannot explain why this task exists');
      }
      break;
    }
    case 'analyze_leads':
    case 'request_user_input':
    case 'persist_artifact':
    case 'no_op':
      break;
    default: {
      const exhaustive: never = actionType;
      throw new Error(`unhandled action type ${String(exhaustive)}`);
    }
  }
  return { errors, warnings };
}
