import { randomBytes } from 'node:crypto';

/**
 * §11 session nonce: 8 hex characters, unguessable so that text a tool returns cannot forge the session's
 * XML tags. Drawn at the edge; the loop receives it through its ports.
 */
export function randomNonce(): string {
  return randomBytes(4).toString('hex');
}
