import type { ValidationOptions } from 'class-validator';
import { VISIBLE_TEXT_PATTERN } from '@runledger/task-assistant';

/**
 * The named forms of contract fields: each pattern, and the words a refused caller reads for it (`@Matches(CASE_ID,
 * CASE_ID_FORM)`), side by side so they cannot drift apart. The words say the form, never the pattern: a regular
 * expression says nothing to a caller, and class-validator's templating mangles one holding `$&` or `$'`.
 */
const form = (words: string): ValidationOptions => ({ message: `$property must be ${words}` });

export const UPPER_NAME = /^[A-Z][A-Z0-9_]{1,63}$/;
export const AGENT_NAME_FORM = form('an agent name: an upper-case letter, then upper-case letters, digits or _ (2-64 in all)');
export const LANE_FORM = form('a lane name: an upper-case letter, then upper-case letters, digits or _ (2-64 in all)');

export const PROFILE_ID = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const PROFILE_ID_FORM = form('a profile id: lower-case words of letters and digits joined by -');

// A user id is shown to operators (escaped) and typed back to erase its owner's data: no character a terminal cannot
// carry or show as itself (probe finding: a user `fr\u0000ank` could not be erased).
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
export const USER_ID = /^[^\u0000-\u001f\u007f-\u009f]*$/;
export const USER_ID_FORM = form('a user id without control characters');

// A task description shows something: the task-assistant lib's one rule (VISIBLE_TEXT_PATTERN), not a copy of it.
export const DESCRIPTION = new RegExp(VISIBLE_TEXT_PATTERN, 'u');
export const DESCRIPTION_FORM = form('a description that shows something, not invisible characters only');

export const CASE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
export const CASE_ID_FORM = form('a case id: a letter or digit, then letters, digits, . _ : or -');

export const ARTIFACT_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
export const ARTIFACT_ID_FORM = form('an artifact id: a letter or digit, then letters, digits, . _ : or -');

export const KIND = /^[a-z][a-z0-9_]*$/;
export const KIND_FORM = form('an input kind: a lower-case letter, then lower-case letters, digits or _');

export const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*(;.*)?$/;
export const MEDIA_TYPE_FORM = form('a media type such as application/json (type/subtype, lower case, parameters after ;)');

export const SHA256 = /^[0-9a-f]{64}$/;
export const SHA256_FORM = form('a SHA-256 digest: 64 lower-case hexadecimal digits');

// 1-63: the document store's own bound (a collection is a stream and a MongoDB collection: COLLECTION_NAME_PATTERN).
export const COLLECTION = /^[a-z][a-z0-9_]{0,62}$/;
export const COLLECTION_FORM = form('a collection name: a lower-case letter, then lower-case letters, digits or _ (1-63 in all)');

// The CLI checks a --durable with this before asking (probe finding L7): the same rule, not a copy.
export const DURABLE_NAME = /^[A-Za-z0-9_-]+$/;
export const DURABLE_NAME_FORM = form('a durable consumer name: letters, digits, _ or -');
