import type { ValidateFunction } from 'ajv';
import { contractValidator } from '@runledger/contract-schemas';
import { AppError } from '@runledger/kernel';

// The campaign requests are validated against their proto-contracts schemas themselves (one source, through the one
// contract validator): the nested agent specs and lead lists are JSON Schema's strength.
const SCHEMAS = {
  answer: 'schemas/campaigns/campaign-answer-request.schema.json',
  command: 'schemas/campaigns/campaign-command-request.schema.json',
  create: 'schemas/campaigns/campaign-create-request.schema.json',
  leads: 'schemas/campaigns/campaign-leads-import-request.schema.json',
} as const;

export type CampaignSchema = keyof typeof SCHEMAS;

/** The request as its schema's type, or REQUEST.INVALID listing every problem. */
export function validCampaignRequest<T>(schema: CampaignSchema, raw: unknown): T {
  const validate: ValidateFunction = contractValidator(SCHEMAS[schema]);
  if (validate(raw)) return raw as T;
  const details = (validate.errors ?? []).slice(0, 10).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`);
  throw new AppError('REQUEST.INVALID', 'The request is not valid.', details);
}
