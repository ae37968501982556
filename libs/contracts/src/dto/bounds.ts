import { ValidateBy, ValidationOptions } from 'class-validator';
import { jsonByteLength } from '@runledger/kernel';

/**
 * Size bounds of the free-form JSON fields of requests (the schemas in proto-contracts/ name the same numbers).
 * These fields are kept in the log, some of them in more than one event, so they stay small; bulk content is
 * stored with rl.artifacts.put and referenced by its hash.
 */
export const JSON_FIELD_MAX_BYTES = {
  /** Tool and agent parameters. */
  parameters: 64 * 1024,
  /** A db-write document or patch. */
  document: 64 * 1024,
  /** A db-read filter. */
  filter: 16 * 1024,
  /** The governance scope's free-form labels. */
  scope: 4 * 1024,
} as const;

/** The value, serialised as JSON, is at most `max` bytes. */
export function MaxJsonBytes(max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy({
    name: 'maxJsonBytes',
    constraints: [max],
    validator: {
      validate: (value: unknown) => value === undefined || jsonByteLength(value) <= max,
      defaultMessage: (args) => `${args?.property} must be at most ${max} bytes as JSON`,
    },
  }, options);
}

/**
 * The longest id of a data owner the log can hold (README "Erasure"): a case_id; a user is a request's user_id (≤ 256)
 * or a caller door's user, its keyed form `rl.caller.<identity>.<user_id>` (≤ 512, as every governance scope takes:
 * probe finding, a door user with a long user_id could not be erased). What `runledger erase` accepts too, so an id
 * no request could name is refused as a typo instead of erased.
 */
export const OWNER_ID_MAX_LENGTH = { user: 512, case: 128 } as const;
