/**
 * Output validation table: allowed tools, parameters match the tool schemas,
 * decision type is a valid enum value, pending action only for DELETE_TASK.
 * Plus the invariants each decision type implies (what a caller relies on).
 */
import { compileSchema, type ValidateFunction } from '@runledger/contract-schemas';
import { TASK_TOOL_SCHEMAS, TOOL_NAMES } from './tool-schemas';
import { isUuid } from '@runledger/kernel';
import type { AgentDecision, DecisionType, ToolName } from './types';

/** Every valid decision type. */
export const DECISION_TYPES: readonly DecisionType[] = [
  'INVOKE_TOOL',
  'RESPOND_ONLY',
  'ASK_CLARIFICATION',
  'REQUEST_CONFIRMATION',
  'EXECUTE_PENDING',
  'CANCEL_PENDING',
];

let validators: Record<ToolName, ValidateFunction> | null = null;

function validatorFor(tool: ToolName): ValidateFunction {
  if (!validators) {
    validators = Object.fromEntries(TOOL_NAMES.map((t) => [t, compileSchema(TASK_TOOL_SCHEMAS[t])])) as Record<
      ToolName,
      ValidateFunction
    >;
  }
  return validators[tool];
}

function isText(v: unknown): boolean {
  return typeof v === 'string' && v.trim() !== '';
}

function checkToolCalls(d: AgentDecision, out: string[]): void {
  if (d.tool_calls === null || d.tool_calls === undefined) return;
  if (!Array.isArray(d.tool_calls)) {
    out.push('tool_calls must be an array or null');
    return;
  }
  d.tool_calls.forEach((call, i) => {
    const where = `tool_calls[${i}]`;
    if (!TOOL_NAMES.includes(call?.tool_name)) {
      out.push(`${where}: tool '${String(call?.tool_name)}' is not allowed`);
      return;
    }
    if (call.sequence !== i + 1) out.push(`${where}: sequence must be ${i + 1}`);
    const validate = validatorFor(call.tool_name);
    if (!validate(call.parameters)) {
      for (const e of validate.errors ?? []) out.push(`${where} ${call.tool_name}${e.instancePath}: ${e.message}`);
    }
    // The delete only ever happens once the user said yes (Rule 1).
    if (call.tool_name === 'delete_task' && d.decision_type !== 'EXECUTE_PENDING') {
      out.push(`${where}: delete_task only allowed in EXECUTE_PENDING`);
    }
  });
}

function checkShape(d: AgentDecision, out: string[]): void {
  const calls = Array.isArray(d.tool_calls) ? d.tool_calls : [];
  switch (d.decision_type) {
    case 'INVOKE_TOOL':
      if (calls.length === 0) out.push('INVOKE_TOOL needs at least one tool call');
      if (!isText(d.response_text)) out.push('INVOKE_TOOL needs response_text');
      break;
    case 'RESPOND_ONLY':
    case 'CANCEL_PENDING':
      if (calls.length > 0) out.push(`${d.decision_type} must not have tool calls`);
      if (!isText(d.response_text)) out.push(`${d.decision_type} needs response_text`);
      break;
    case 'ASK_CLARIFICATION':
      if (!isText(d.clarification_question)) out.push('ASK_CLARIFICATION needs clarification_question');
      break;
    case 'REQUEST_CONFIRMATION':
      if (!d.pending_action) out.push('REQUEST_CONFIRMATION needs pending_action');
      if (!isText(d.response_text)) out.push('REQUEST_CONFIRMATION needs response_text');
      break;
    case 'EXECUTE_PENDING':
      // The pending delete first; a list_tasks may follow it only to show what is left when the task was gone.
      if (calls[0]?.tool_name !== 'delete_task' || calls.filter((c) => c.tool_name === 'delete_task').length !== 1 || calls.slice(1).some((c) => c.tool_name !== 'list_tasks') || calls.length > 2) {
        out.push('EXECUTE_PENDING needs exactly one delete_task call, optionally followed by list_tasks');
      }
      if (!isText(d.response_text)) out.push('EXECUTE_PENDING needs response_text');
      break;
  }
}

function checkPendingAction(d: AgentDecision, out: string[]): void {
  const p = d.pending_action;
  if (p === null || p === undefined) return;
  if (d.decision_type !== 'REQUEST_CONFIRMATION') out.push('pending_action only allowed with REQUEST_CONFIRMATION');
  if (p.action_type !== 'DELETE_TASK') out.push('pending_action only for DELETE_TASK');
  if (!isUuid(p.task_id)) out.push('pending_action.task_id must be a uuid');
  if (typeof p.task_description !== 'string') out.push('pending_action.task_description must be a string');
}

/** Checks a decision against the Output validation table. Returns the violations; empty = valid. */
export function validateDecision(d: AgentDecision): string[] {
  const out: string[] = [];
  if (typeof d !== 'object' || d === null) return ['decision must be an object'];
  if (!DECISION_TYPES.includes(d.decision_type)) {
    out.push(`decision_type '${String(d.decision_type)}' is not a valid value`);
  }
  checkToolCalls(d, out);
  checkShape(d, out);
  checkPendingAction(d, out);
  return out;
}
