import { jsonShape, JsonShape } from '@runledger/kernel';

/**
 * The shape (jsonShape: nesting, prototype-named keys) of each request body the transport decoded, found by its one
 * walk: validation reads it here instead of walking the body again. Weak: an entry lives as long as its body. Sound
 * only while nothing changes a body between its decode and its validation (nothing does: handlers get it after both).
 */
const walked = new WeakMap<object, JsonShape>();

export function rememberShape(value: unknown, shape: JsonShape): void {
  if (typeof value === 'object' && value !== null) walked.set(value, shape);
}

/** The transport's finding for a body it decoded; for a value built in the process, a walk of its own. */
export function shapeOf(value: object): JsonShape {
  return walked.get(value) ?? jsonShape(value);
}
