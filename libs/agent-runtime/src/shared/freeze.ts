/**
 * Recursively freezes plain data in place and returns it typed as deeply readonly.
 * Typed arrays cannot be frozen (the engine throws), so callers that need
 * immutability for binary data must convert it first (see `toFrozenData`).
 */
export type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends readonly (infer U)[]
    ? readonly DeepReadonly<U>[]
    : T extends object
      ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
      : T;

export function freezeDeep<T>(value: T): DeepReadonly<T> {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value) && !ArrayBuffer.isView(value)) {
    Object.freeze(value);
    for (const key of Reflect.ownKeys(value)) {
      freezeDeep((value as Record<PropertyKey, unknown>)[key]);
    }
  }
  return value as DeepReadonly<T>;
}

/**
 * Copies a value through its JSON form (what crosses NATS and lands in the log)
 * and freezes the copy, so freezing never reaches into an object the caller
 * still holds. Returns undefined for undefined; throws on values JSON cannot carry
 * (BigInt, cycles) — callers turn that into a failure result.
 */
export function toFrozenData(value: unknown): unknown {
  if (value === undefined) return undefined;
  const json = JSON.stringify(value);
  // JSON.stringify returns undefined for functions and symbols: not data.
  if (json === undefined) throw new TypeError(`value of type ${typeof value} is not JSON data`);
  return freezeDeep(JSON.parse(json) as unknown);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
