import { contractValidator } from '@runledger/contract-schemas';
import { validateBySchema } from '@runledger/messaging';

// The campaign requests are validated against their proto-contracts schemas themselves (one source, through the one
// contract validator): the nested agent specs and lead lists are JSON Schema's strength. Refused in the words of every
// other request's refusal (validateBySchema).
const SCHEMAS = {
  answer: 'schemas/campaigns/campaign-answer-request.schema.json',
  command: 'schemas/campaigns/campaign-command-request.schema.json',
  create: 'schemas/campaigns/campaign-create-request.schema.json',
  leads: 'schemas/campaigns/campaign-leads-import-request.schema.json',
} as const;

export type CampaignSchema = keyof typeof SCHEMAS;

/** The request as its schema's type, or REQUEST.INVALID listing every problem. */
export function validCampaignRequest<T>(schema: CampaignSchema, raw: unknown): T {
  return validateBySchema<T>(contractValidator(SCHEMAS[schema]), raw);
}
