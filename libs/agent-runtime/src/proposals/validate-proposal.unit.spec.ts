import { exampleSnapshot, PROPOSAL_EXAMPLES } from './contract-examples.unit-support';
import { contractValidator } from '@runledger/contract-schemas';
import { ACTION_TYPES } from './schemas';

const validateValidationErrorSchema = contractValidator('schemas/proposals/validation-error.schema.json');
import { buildStateSnapshot } from './state-snapshot';
import type { StateSnapshot } from './types';
import { toValidationErrorResponse, validateProposal, type ProposalValidationResult } from './validate-proposal';

const snapshot = exampleSnapshot();

const errorsOf = (r: ProposalValidationResult) => (r.isValid ? [] : r.errors);

describe('validateProposal: schema layer', () => {
  it.each([
    ['FR-005i', 'create_task'],
    ['FR-005j', 'select_next_task'],
    ['FR-005k', 'execute_tool'],
    ['FR-005l', 'generate_message'],
    ['FR-005m', 'analyze_leads'],
    ['FR-005n', 'request_user_input'],
    ['FR-005o', 'persist_artifact'],
    ['FR-005p', 'no_op'],
  ])('%s: the contract example of %s is valid against the example snapshot', (_, actionType) => {
    const json = JSON.stringify(PROPOSAL_EXAMPLES[actionType]);
    const result = validateProposal(json, snapshot);
    expect(errorsOf(result)).toEqual([]);
    expect(result).toMatchObject({ isValid: true, actionType, warnings: [] });
  });

  it.each([
    ['create_task', '{"action_type":"create_task","task":{"description":"Test the follow-up timing"}}'],
    ['no_op', '{"action_type":"no_op","reason":"awaiting_user_input"}'],
  ])('FR-005d: ProposalValidator_ValidSchema_ReturnsValid (%s)', (actionType, json) => {
    const result = validateProposal(json);
    expect(result.isValid).toBe(true);
    expect(result.actionType).toBe(actionType);
  });

  it('FR-005d: the C# case with description "Test" is rejected, because the contract schema requires 10 characters', () => {
    // The contract's own test expects this to be valid; its schema (minLength 10) says otherwise, and the schema wins.
    const result = validateProposal('{"action_type":"create_task","task":{"description":"Test"}}');
    expect(errorsOf(result)).toEqual(['/task/description must NOT have fewer than 10 characters']);
  });

  it('FR-010: ProposalValidator_InvalidActionType_ReturnsInvalid', () => {
    const result = validateProposal('{"action_type":"invalid_action"}');
    expect(result.isValid).toBe(false);
    expect(!result.isValid && result.error).toContain('unknown action type');
    expect(!result.isValid && result.error).toContain(ACTION_TYPES.join(', '));
  });

  it.each([
    ['malformed JSON', '{"action_type":', 'PROPOSAL.NOT_JSON: the proposal is not valid JSON'],
    ['a JSON array', '[1,2]', 'proposal must be a JSON object'],
    ['no action type', '{"reason":"x"}', 'unknown action type (missing)'],
  ])('FR-010: %s is rejected with a reason', (_, json, expected) => {
    const result = validateProposal(json);
    expect(!result.isValid && result.error).toContain(expected);
  });

  it('FR-010: text that is not JSON is refused with PROPOSAL.NOT_JSON in our words, never the parser\'s', () => {
    for (const text of ['{"action_type":', 'Sure! Here it is: {no_op}', '']) {
      expect(errorsOf(validateProposal(text))).toEqual(['PROPOSAL.NOT_JSON: the proposal is not valid JSON; answer with exactly one JSON object']);
    }
    const cyclic: Record<string, unknown> = { action_type: 'no_op', reason: 'rate_limit_reached' };
    cyclic['self'] = cyclic;
    expect(errorsOf(validateProposal(cyclic))).toEqual(['PROPOSAL.NOT_JSON: the proposal holds values JSON cannot carry']);
  });

  it('FR-005d: validation is total: every violation is reported at once and nothing is returned to execute', () => {
    const result = validateProposal({ action_type: 'persist_artifact', artifact: { artifact_type: 'malware', content: 'x' }, requires_approval: 'no' });
    expect(result).not.toHaveProperty('proposal');
    expect(errorsOf(result)).toEqual([
      "/artifact must have required property 'artifact_key'",
      '/artifact/artifact_type must be equal to one of the allowed values: job_posting, scoring_algorithm, python_script, analysis_result',
      '/artifact/content must be object',
      '/requires_approval must be boolean',
    ]);
  });

  it('FR-005d: a valid proposal is a frozen copy with requires_approval defaulted to true; the input is untouched', () => {
    const input = { action_type: 'generate_message', message: { type: 'follow_up', content: 'Thanks for connecting, Jane. Happy to share notes.' } };
    const result = validateProposal(input);
    if (!result.isValid) throw new Error(result.error);
    expect(result.proposal).toMatchObject({ requires_approval: true });
    expect(input).not.toHaveProperty('requires_approval');
    expect(Object.isFrozen(result.proposal)).toBe(true);
  });
});

describe('validateProposal: business layer', () => {
  it('FR-005k: execute_tool with a tool outside the allowed set is rejected, naming the tool', () => {
    const result = validateProposal({ action_type: 'execute_tool', tool_name: 'shell_exec', parameters: {} });
    expect(errorsOf(result)).toEqual([
      "/tool_name tool 'shell_exec' is not an allowed tool (allowed: browser_navigate, browser_click, browser_type, send_message, python_execute)",
    ]);
  });

  it('FR-005j: select_next_task must name the current or a pending task of the snapshot', () => {
    const select = (task_id: string) => validateProposal({ action_type: 'select_next_task', task_id }, snapshot);
    expect(select('770e8400-e29b-41d4-a716-446655440002').isValid).toBe(true);
    expect(select('660e8400-e29b-41d4-a716-446655440001').isValid).toBe(true);
    const unknown = select('990e8400-e29b-41d4-a716-446655440009');
    expect(!unknown.isValid && unknown.error).toContain('neither the current task nor a pending task');
  });

  it('FR-005j: without a snapshot the task cannot be checked, and the result says so', () => {
    const result = validateProposal({ action_type: 'select_next_task', task_id: '990e8400-e29b-41d4-a716-446655440009' });
    expect(result.isValid && result.warnings).toEqual([expect.stringContaining('was not checked against a state snapshot')]);
  });

  it('FR-005l: generate_message content over 300 characters is rejected with its length', () => {
    const result = validateProposal({ action_type: 'generate_message', message: { type: 'direct_message', content: 'x'.repeat(301) } });
    expect(errorsOf(result)).toEqual(['/message/content is 301 characters; LinkedIn allows at most 300']);
    const exact = validateProposal({ action_type: 'generate_message', message: { type: 'direct_message', content: 'é'.repeat(300) } });
    expect(exact.isValid).toBe(true);
  });

  it('FR-005i: create_task without a justification is accepted with a warning', () => {
    const result = validateProposal({ action_type: 'create_task', task: { description: 'Send a follow-up message' } });
    expect(result.isValid && result.warnings).toEqual([expect.stringContaining('no justification')]);
  });

  it('FR-050: a snapshot that breaks its own schema makes the proposal invalid rather than checked against bad data', () => {
    const bad = { ...snapshot, pending_tasks: 'none' } as unknown as StateSnapshot;
    const result = validateProposal({ action_type: 'no_op', reason: 'campaign_complete' }, bad);
    expect(!result.isValid && result.errors).toEqual(['state snapshot /pending_tasks must be array']);
  });

  it('FR-050: a frozen snapshot from buildStateSnapshot is accepted as the check context', () => {
    const built = buildStateSnapshot({ ...snapshot, audit_log: snapshot.recent_audit_log });
    if (!built.ok) throw new Error(built.message);
    const result = validateProposal({ action_type: 'select_next_task', task_id: snapshot.pending_tasks[0]!.id }, built.value.snapshot);
    expect(result.isValid).toBe(true);
  });
});

describe('ValidationError response', () => {
  it('FR-010: a rejection maps to a body that conforms to validation-error.schema.json', () => {
    const result = validateProposal('{"action_type":"invalid_action"}');
    if (result.isValid) throw new Error('expected a rejection');
    const body = toValidationErrorResponse(result);
    expect(validateValidationErrorSchema(body)).toBe(true);
    expect(body).toMatchObject({ is_valid: false, action_type: null });
    expect(validateValidationErrorSchema({ ...body, errors: [] })).toBe(false);
  });
});
