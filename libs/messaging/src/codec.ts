import { headers as natsHeaders, MsgHdrs } from '@nats-io/transport-node';
import { isWireError, JSON_BOUNDS, jsonShape, jsonShapeProblems, WireError } from '@runledger/kernel';
import { rememberShape } from './request-shape';

/** Replies carry the contract shape as their body; success or failure travels in this header. */
export const STATUS_HEADER = 'Rl-Status';
/** A client's id of one request, the same on each of its retries (@runledger/client sends it); traced as rl.request_id. */
export const REQUEST_ID_HEADER = 'Rl-Request-Id';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value ?? null));
}

export function decodeJson(bytes: Uint8Array): unknown {
  return bytes.length === 0 ? undefined : JSON.parse(decoder.decode(bytes));
}

export function replyHeaders(status: 'ok' | 'error'): MsgHdrs {
  const h = natsHeaders();
  h.set(STATUS_HEADER, status);
  return h;
}

/** Reads a reply: the body on success, the wire error on failure. */
export function decodeReply(data: Uint8Array, hdrs: MsgHdrs | undefined): { ok: true; body: unknown } | { ok: false; error: WireError } {
  const body = decodeJson(data);
  if (hdrs?.get(STATUS_HEADER) === 'error') {
    return { ok: false, error: isWireError(body) ? body : { code: 'INTERNAL', message: 'Something went wrong on our side.', retryable: true } };
  }
  return { ok: true, body };
}

/**
 * A request body as JSON within the structural bounds, or why not: nested at most JSON_BOUNDS.maxDepth levels, and no
 * key that addresses a prototype (JSON_BOUNDS.forbiddenKeys) anywhere. Its one walk also finds every other key named
 * like an Object.prototype member; validateMessage refuses those from that finding, naming each in its details.
 */
export function decodeBounded(data: Uint8Array): { ok: true; value: unknown } | { ok: false; reason: string } {
  let value: unknown;
  try {
    value = decodeJson(data);
  } catch {
    return { ok: false, reason: 'The request is not valid JSON.' };
  }
  const shape = jsonShape(value);
  if (shape.tooDeep !== null || shape.illFormed !== undefined || shape.prototypeKeys.some(addressesPrototype)) {
    // A few problems named, at most: 10k bad keys must not make an answer larger than the bus carries.
    const problems = jsonShapeProblems(shape);
    const named = problems.length > MAX_NAMED ? [...problems.slice(0, MAX_NAMED), `and ${problems.length - MAX_NAMED} more`] : problems;
    return { ok: false, reason: `The request is not valid: ${named.join('; ')}.` };
  }
  rememberShape(value, shape);
  return { ok: true, value };
}

const MAX_NAMED = 5;

/** A prototype-named key's path (no such key has a dot) ends in one of the keys refused before any handler. */
function addressesPrototype(path: string): boolean {
  return JSON_BOUNDS.forbiddenKeys.includes(path.slice(path.lastIndexOf('.') + 1));
}
