import type { ValidationError } from 'class-validator';

/** Every problem of a refused message, one line each, naming the field by its path (`a.b[0].c` as `a.b.0.c`). */
export function describeErrors(errors: readonly ValidationError[], prefix = ''): string[] {
  return errors.flatMap((e) => {
    const path = prefix ? `${prefix}.${e.property}` : e.property;
    return [...fieldProblems(e, path), ...describeErrors(e.children ?? [], path)];
  });
}

/**
 * class-validator's constraints that check a value's type (`must be a string`, `must be an integer number` …), each
 * with whether the value is of another kind altogether (an integer check failing on 1000.5 is not: its range still
 * applies).
 */
const TYPE_CHECKS: ReadonlyMap<string, (value: unknown) => boolean> = new Map([
  ['isString', (v: unknown) => typeof v !== 'string'],
  ['isInt', (v: unknown) => typeof v !== 'number'],
  ['isNumber', (v: unknown) => typeof v !== 'number'],
  ['isBoolean', (v: unknown) => typeof v !== 'boolean'],
  ['isObject', (v: unknown) => typeof v !== 'object' || Array.isArray(v)],
  ['isArray', (v: unknown) => !Array.isArray(v)],
  ['isDate', (v: unknown) => !(v instanceof Date)],
]);

/** A type check that failed because the value itself is of another kind, not an element of it (`each value in …`). */
function isWrongKind(name: string, message: string, value: unknown): boolean {
  return !message.startsWith('each value in ') && (TYPE_CHECKS.get(name)?.(value) ?? false);
}

/**
 * One field's problems in words: a missing field is required (not "too long" or "must match"), a wrong type names the type. A pattern's form in
 * words is the DTO's own message (libs/contracts dto/forms.ts); a pattern without one is never shown: it says nothing
 * to a caller, and class-validator's templating mangles one holding `$&` or `$'`.
 */
function fieldProblems(e: ValidationError, path: string): string[] {
  const constraints = Object.entries(e.constraints ?? {});
  if (!constraints.length) return [];
  // A field that may not be there at all (forbidNonWhitelisted) says so itself, whatever its value.
  const unknown = constraints.filter(([name]) => name === 'whitelistValidation').map(([, message]) => message);
  if (unknown.length) return unknown;
  if (e.value === undefined || e.value === null) return [`${path} is required`];
  // A value of the wrong type says the type it must be, alone: its length, range or pattern would describe a value of
  // another kind ("case_id must be shorter than …" for an array).
  const typed = constraints.filter(([name, message]) => isWrongKind(name, message, e.value));
  return (typed.length ? typed : constraints).map(([name, message]) => {
    if (name === 'matches' && isTemplatedPattern(message, e.property)) return `${path} has characters or a shape its contract does not allow`;
    if (message.startsWith(e.property)) return `${prefix(path, e.property)}${message}`;
    // An element's check names the field once, by its whole path ("each value in a.b must be …").
    const each = `each value in ${e.property} `;
    return message.startsWith(each) ? `each value in ${path} ${message.slice(each.length)}` : `${path}: ${message}`;
  });
}

/** class-validator's own message of @Matches ("x must match /…/ regular expression"), not a DTO's written one. */
function isTemplatedPattern(message: string, property: string): boolean {
  return message.startsWith(`${property} must match `) && message.endsWith(' regular expression');
}

/** The parent path before a message that starts with the field's own name. */
function prefix(path: string, property: string): string {
  return path.slice(0, path.length - property.length);
}
