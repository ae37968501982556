// sha256 is a pure function (no I/O, time or randomness), so domain code may use OpenSSL's: 3–6× the pure-JavaScript
// one, on every event id and chain hash.
// eslint-disable-next-line @typescript-eslint/no-restricted-imports
import { hash } from 'node:crypto';
import { wellFormedText } from './json-bounds';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * True for any textual UUID, 8-4-4-4-12 hex digits in either case (any version or variant): the one UUID check of
 * Runledger's own code (the task assistant's ids, a refused request's run id). DTO fields use class-validator's IsUUID,
 * which also asks for a known version and variant.
 */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_RE.test(value);
}

/**
 * A UUID as Runledger records and looks one up: in lower case. UUIDs are case-insensitive (RFC 9562 §4: read in either
 * case, written in lower case), and run ids are recorded in lower case (derived, drawn or sent so), so a run id sent in
 * upper case names the same run. Anything that is not a UUID is returned as it is (its validation refuses it).
 * Deliberately isUuid's loose form, not IsUUID's (which asks for a known version and variant): it must lower-case
 * every id any check of Runledger accepts, and the task assistant's conversation_id check is isUuid, so a conversation
 * id of an unknown version is one conversation in either case too. What IsUUID refuses, it refuses in either case
 * ("run_id must be a UUID", the value unquoted), so lower-casing it first changes no answer.
 */
export function canonicalUuid<T>(value: T): T {
  return isUuid(value) ? (value.toLowerCase() as T) : value;
}

const PART_SEPARATOR = '\u001f';
const ESCAPED = '\u001e';


/**
 * One input of deterministicUuid as hashed, so that different inputs never hash alike (probe finding: a user id and a
 * request id holding the separator made another user's id, and lone surrogates all became U+FFFD in UTF-8). A part
 * with neither is itself, as every id derived before this was; one with either is escaped (JSON.stringify writes the
 * separator and a lone surrogate as `\u` escapes) behind a mark no unescaped part starts with.
 */
function idPart(part: string | number): string {
  const s = String(part);
  return s.includes(PART_SEPARATOR) || s.startsWith(ESCAPED) || !wellFormedText(s) ? ESCAPED + JSON.stringify(s) : s;
}

/**
 * A UUID derived from its inputs (version 8, "custom", over sha256).
 * Retried commands must produce the same event ids, child run ids and task ids,
 * so that appends deduplicate and side effects stay single: ids are derived, never drawn.
 */
export function deterministicUuid(...parts: Array<string | number>): string {
  const hex = sha256Hex(parts.map(idPart).join(PART_SEPARATOR));
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Lowercase hex sha256 of a UTF-8 string or bytes. One-shot (no Hash object per call): a third of createHash's CPU on
 * the short texts ids and request hashes are made of (~20 a request in decision, issue 22).
 */
export function sha256Hex(input: string | Uint8Array): string {
  return hash('sha256', input, 'hex');
}
