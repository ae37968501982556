/** Business failures are values, not exceptions: callers branch on `ok`. */
export type Ok<T> = { readonly ok: true; readonly value: T };
export type Err<C extends string = string> = {
  readonly ok: false;
  readonly code: C;
  readonly message: string;
  readonly errors?: readonly string[];
};
export type Result<T, C extends string = string> = Ok<T> | Err<C>;

export const ok = <T>(value: T): Ok<T> => ({ ok: true, value });
export const err = <C extends string>(code: C, message: string, errors?: readonly string[]): Err<C> =>
  errors === undefined ? { ok: false, code, message } : { ok: false, code, message, errors };
