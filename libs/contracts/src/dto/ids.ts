import { Transform } from 'class-transformer';
import { IsUUID, type ValidationOptions } from 'class-validator';
import { canonicalUuid } from '@runledger/kernel';

/**
 * A run id, or another id Runledger records as a UUID (a conversation): a UUID in either case, read in lower case
 * (canonicalUuid: UUIDs are case-insensitive, RFC 9562, and run ids are recorded in lower case), so the id in upper
 * case names the same run, derives the same ids and is the same request as in lower case. A lower-case id is read as it
 * is sent; a value that is no UUID is left as it is and refused (`run_id must be a UUID`). `each` for a list of ids.
 * The one rule for every such field of every DTO (the fast path of validateMessage applies the transform too); the
 * campaign requests, validated by their JSON Schemas, read their UUIDs by canonicalUuid too (validCampaignRequest).
 */
export function IsRunId(options?: ValidationOptions): PropertyDecorator {
  const lowerCase = Transform(({ value }: { value: unknown }) => (Array.isArray(value) ? value.map((v: unknown) => canonicalUuid(v)) : canonicalUuid(value)));
  const uuid = IsUUID(undefined, options);
  return (target, key) => {
    lowerCase(target, key);
    uuid(target, key);
  };
}
