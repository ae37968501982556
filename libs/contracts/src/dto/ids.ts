import { Transform } from 'class-transformer';
import { IsUUID, ValidateBy, type ValidationOptions } from 'class-validator';
import { canonicalUuid, documentIdProblem } from '@runledger/kernel';

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

/**
 * A document id the document store keeps as it is: not empty, no control characters, well-formed text, at most 512
 * bytes as UTF-8 (kernel's documentIdProblem, the store's own rule), so an id the store would refuse is REQUEST.INVALID
 * at the door (`document_id must not hold control characters`), never a failure of the write. A value that is no
 * string is left to IsString, which names the type alone.
 */
export function IsDocumentId(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy({
    name: 'isDocumentId',
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || documentIdProblem(value) === null,
      defaultMessage: (args) => `${args?.property} ${documentIdProblem(String(args?.value))}`,
    },
  }, options);
}
