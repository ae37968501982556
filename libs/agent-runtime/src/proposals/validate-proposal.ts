import { freezeDeep, isPlainObject, type DeepReadonly } from '../shared/freeze';
import { formatAjvErrors } from '../shared/schema';
import { checkBusinessRules } from './business-rules';
import { ACTION_TYPES, isActionType, proposalValidator, type ActionType } from './schemas';
import { validateStateSnapshot } from './state-snapshot';
import type { AgentProposal, StateSnapshot, ValidationErrorResponse } from './types';

export type ValidProposal = {
  readonly isValid: true;
  readonly actionType: ActionType;
  /** A frozen copy with schema defaults applied (requires_approval: true when omitted). */
  readonly proposal: DeepReadonly<AgentProposal>;
  readonly warnings: readonly string[];
};

export type InvalidProposal = {
  readonly isValid: false;
  /** The proposal's action_type when it is a known one, else null. */
  readonly actionType: ActionType | null;
  /** One line for logs and retry prompts. */
  readonly error: string;
  readonly errors: readonly string[];
};

export type ProposalValidationResult = ValidProposal | InvalidProposal;

const invalid = (actionType: ActionType | null, errors: string[]): InvalidProposal => ({
  isValid: false,
  actionType,
  error: `${actionType ?? 'proposal'} rejected: ${errors.join('; ')}`,
  errors,
});

/** A proposal's text that does not parse: a specific code first, then what to do, as a reason the caller may read. */
const NOT_JSON = 'PROPOSAL.NOT_JSON: the proposal is not valid JSON; answer with exactly one JSON object';
const NOT_JSON_DATA = 'PROPOSAL.NOT_JSON: the proposal holds values JSON cannot carry';

/**
 * Validates one agent proposal (003, FR-005d, FR-010). Total before returning:
 * the schema layer and the business layer both run and every violation is
 * reported, and nothing is returned as valid unless both pass. `snapshot` is the
 * state the agent was shown; without it select_next_task cannot be checked and
 * gets a warning.
 */
export function validateProposal(json: string | unknown, snapshot?: DeepReadonly<StateSnapshot>): ProposalValidationResult {
  let value: unknown = json;
  if (typeof json === 'string') {
    try {
      value = JSON.parse(json);
    } catch {
      // Our own wording, never the parser's: these reasons reach the campaign's caller and the model's retry prompt.
      return invalid(null, [NOT_JSON]);
    }
  }
  if (!isPlainObject(value)) return invalid(null, ['proposal must be a JSON object']);

  const actionType = value['action_type'];
  if (!isActionType(actionType)) {
    const shown = actionType === undefined ? 'missing' : `'${String(actionType)}'`;
    return invalid(null, [`unknown action type (${shown}); expected one of: ${ACTION_TYPES.join(', ')}`]);
  }

  if (snapshot !== undefined) {
    const snap = validateStateSnapshot(snapshot);
    if (!snap.ok) return invalid(actionType, (snap.errors ?? [snap.message]).map((e) => `state snapshot ${e}`));
  }

  // Validate a private copy: ajv fills defaults in place, and the caller's object must not change.
  let copy: Record<string, unknown>;
  try {
    copy = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  } catch {
    return invalid(actionType, [NOT_JSON_DATA]);
  }
  const validate = proposalValidator(actionType);
  const schemaOk = validate(copy);
  const business = checkBusinessRules(actionType, copy, snapshot);
  const superseded = new Set(business.errors.map((e) => e.path));
  const schemaErrors = schemaOk ? [] : formatAjvErrors((validate.errors ?? []).filter((e) => !superseded.has(e.instancePath)));
  const errors = [...schemaErrors, ...business.errors.map((e) => e.message)];
  if (errors.length > 0) return invalid(actionType, errors);

  return {
    isValid: true,
    actionType,
    proposal: freezeDeep(copy as unknown as AgentProposal),
    warnings: business.warnings,
  };
}

/** The wire body (validation-error.schema.json) for a rejected proposal. */
export function toValidationErrorResponse(result: InvalidProposal): ValidationErrorResponse {
  return { is_valid: false, action_type: result.actionType, error: result.error, errors: [...result.errors] };
}
