import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { AppError } from '@runledger/kernel';
import answer from '../../../../../proto-contracts/schemas/campaigns/campaign-answer-request.schema.json';
import command from '../../../../../proto-contracts/schemas/campaigns/campaign-command-request.schema.json';
import create from '../../../../../proto-contracts/schemas/campaigns/campaign-create-request.schema.json';
import leads from '../../../../../proto-contracts/schemas/campaigns/campaign-leads-import-request.schema.json';

// The campaign requests are validated against their proto-contracts schemas themselves (one source): the
// nested agent specs and lead lists are JSON Schema's strength, and the generated types follow the same files.
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const compiled = { answer: ajv.compile(answer), command: ajv.compile(command), create: ajv.compile(create), leads: ajv.compile(leads) };

export type CampaignSchema = keyof typeof compiled;

/** The request as its schema's type, or REQUEST.INVALID listing every problem. */
export function validCampaignRequest<T>(schema: CampaignSchema, raw: unknown): T {
  const validate: ValidateFunction = compiled[schema];
  if (validate(raw)) return raw as T;
  const details = (validate.errors ?? []).slice(0, 10).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`);
  throw new AppError('REQUEST.INVALID', 'The request is not valid.', details);
}
