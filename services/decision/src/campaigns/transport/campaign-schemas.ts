import { contractValidator } from '@runledger/contract-schemas';
import { canonicalUuid } from '@runledger/kernel';
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

/** The fields of the campaign requests their schemas type as UUIDs (`format: uuid`). */
const UUID_FIELDS = ['campaign_id', 'item_id'] as const;

/**
 * The request as its schema's type, or REQUEST.INVALID listing every problem. Its UUIDs (campaign_id, item_id) are
 * read in lower case as a run id is (canonicalUuid, README "Run ids"): the same campaign named in either case is one
 * campaign. The message itself is not changed: the request returned is a copy when an id is.
 */
export function validCampaignRequest<T>(schema: CampaignSchema, raw: unknown): T {
  const valid = validateBySchema<Record<string, unknown>>(contractValidator(SCHEMAS[schema]), raw);
  const lowered = UUID_FIELDS.filter((k) => Object.hasOwn(valid, k) && canonicalUuid(valid[k]) !== valid[k]);
  return (lowered.length ? { ...valid, ...Object.fromEntries(lowered.map((k) => [k, canonicalUuid(valid[k])])) } : valid) as T;
}
