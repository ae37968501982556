import { compileSchema, type ValidateFunction } from '@runledger/contract-schemas';

/**
 * The shapes an LLM-backed reasoner must answer with, checked before any step output is used (and so before
 * any write): the same shapes the deterministic rules produce (intake.ts, interview.ts, mapping.ts).
 */
const FIELD = { enum: ['name', 'contact', 'matter_description', 'incident_date', 'opposing_party'] };
const str = { type: 'string' };
const strings = { type: 'array', items: str };

export const REASONER_SCHEMAS = {
  intake: {
    type: 'object', required: ['summary', 'checklist', 'entities'],
    properties: {
      summary: { type: 'object', required: ['decision', 'flags', 'narrative', 'missing_fields'], properties: { decision: { enum: ['accept', 'reject', 'needs-more-info'] }, flags: strings, narrative: str, missing_fields: { type: 'array', items: FIELD } } },
      checklist: { type: 'object', required: ['required_fields', 'missing', 'complete'], properties: { required_fields: { type: 'array', items: FIELD }, missing: { type: 'array', items: { type: 'object', required: ['field', 'prompt'], properties: { field: FIELD, prompt: str } } }, complete: { type: 'boolean' } } },
      entities: { type: 'array', items: { type: 'object', required: ['entity_type', 'name', 'role'], additionalProperties: false, properties: { entity_type: { enum: ['person', 'organization'] }, name: { type: 'string', minLength: 1, maxLength: 200 }, role: { enum: ['client', 'opposing_party'] } } } },
    },
  },
  interview_notes: {
    type: 'object', required: ['notes', 'client_turns', 'entities'],
    properties: {
      notes: { type: 'array', items: { type: 'object' } },
      client_turns: { type: 'integer', minimum: 0 },
      entities: { type: 'array', items: { type: 'object', required: ['entity_type', 'name', 'role'], additionalProperties: false, properties: { entity_type: { enum: ['person', 'organization'] }, name: { type: 'string', minLength: 1, maxLength: 200 }, role: { const: 'mentioned' } } } },
    },
  },
  mapping: {
    type: 'object', required: ['coa_version', 'facts', 'evidence_map', 'coa_map', 'summary'],
    properties: {
      coa_version: str, summary: str,
      facts: { type: 'array', items: { type: 'object', required: ['fact_id'], properties: { fact_id: str } } },
      evidence_map: { type: 'array', items: { type: 'object', required: ['fact_id', 'artifact_id', 'kind', 'locator'], properties: { fact_id: str, artifact_id: str, kind: str, locator: str } } },
      coa_map: { type: 'array', items: { type: 'object', required: ['coa_id', 'label', 'fact_ids', 'matched_keywords', 'strength'], properties: { coa_id: str, label: str, fact_ids: strings, matched_keywords: strings, strength: { enum: ['none', 'weak', 'moderate', 'strong'] } } } },
    },
  },
} as const;

export type ReasonerTask = keyof typeof REASONER_SCHEMAS;

const validators = new Map<ReasonerTask, ValidateFunction>();

/** The violations of a model's answer for `task`; empty when it may be used. */
export function reasonerOutputProblems(task: ReasonerTask, value: unknown): string[] {
  let validate = validators.get(task);
  if (!validate) validators.set(task, (validate = compileSchema(REASONER_SCHEMAS[task])));
  if (validate(value)) return [];
  return (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`);
}
