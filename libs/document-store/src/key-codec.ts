/**
 * Reversible mapping between document ids and NATS KV keys.
 *
 * KV keys are subject tokens: only [-/_=.A-Za-z0-9], no empty tokens, no leading or
 * trailing dot. Ids that already fit (and start with a letter or digit) are used as
 * they are, so keys stay readable with `nats kv ls`. Everything else becomes
 * `_b64_` + base64url(UTF-8). Because verbatim keys never start with '_', a key that
 * starts with the prefix is always an encoded one, and decoding is unambiguous.
 */
const ENCODED_PREFIX = '_b64_';
const VERBATIM = /^[A-Za-z0-9][-/_=.A-Za-z0-9]*$/;

/** Maps an id (already validated) to its KV key. */
export function idToKey(id: string): string {
  if (VERBATIM.test(id) && !id.endsWith('.') && !id.includes('..')) return id;
  return ENCODED_PREFIX + Buffer.from(id, 'utf8').toString('base64url');
}

/** Inverse of {@link idToKey}. */
export function keyToId(key: string): string {
  if (key.startsWith(ENCODED_PREFIX)) return Buffer.from(key.slice(ENCODED_PREFIX.length), 'base64url').toString('utf8');
  return key;
}
