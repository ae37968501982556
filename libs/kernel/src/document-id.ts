import { wellFormedText } from './json-bounds';
import { utf8ByteLength } from './text';

/** A stored document id is UTF-8 of at most this many bytes: it keeps an encoded NATS subject far below server limits. */
export const MAX_DOCUMENT_ID_BYTES = 512;

// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

/**
 * What makes a string no storable document id, in words that follow the field's name (`document_id must not hold
 * control characters`), or null for an id the document store keeps as it is. The one rule: the store refuses these
 * ids (validateId) and the DTOs that carry one refuse them first (`IsDocumentId`), so a caller learns it at the door.
 * A lone UTF-16 surrogate has no UTF-8 encoding: stored, it would not read back as the same id. The value is never
 * echoed: a refusal says what is wrong, not what was sent.
 */
export function documentIdProblem(id: string): string | null {
  if (id.length === 0) return 'must not be empty';
  if (CONTROL_CHARS.test(id)) return 'must not hold control characters';
  if (!wellFormedText(id)) return 'must be well-formed text (no lone UTF-16 surrogate)';
  const bytes = utf8ByteLength(id);
  return bytes > MAX_DOCUMENT_ID_BYTES ? `must be at most ${MAX_DOCUMENT_ID_BYTES} bytes as UTF-8 (it is ${bytes})` : null;
}
