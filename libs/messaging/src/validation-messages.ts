import type { ValidationError } from 'class-validator';
import { unknownProperty } from '@runledger/kernel';

/**
 * The words of a refusal's details, whichever validator found the problem: class-validator for a DTO (describeErrors),
 * JSON Schema for a contract validated by its schema (schema-messages.ts). A field is named by its path (`a.b.0.c`).
 */
export const DETAIL_WORDS = {
  /** A field the contract does not name, wherever it is. */
  unknown: unknownProperty,
  /** A missing field: required, never "too long" or "must match". */
  required: (path: string) => `${path} is required`,
  /** A value against a pattern whose form has no words: the pattern itself says nothing to a caller. */
  shapeNotAllowed: (path: string) => `${path} has characters or a shape its contract does not allow`,
} as const;

/**
 * One check's message about the field at `path`: a message that starts with the field's own name as a word ("case_id
 * must be a string") gets the parent path before it ("governance.case_id must be …"); any other is put after the path
 * (a field `m` and "must be multiple of 5" is "m: must be multiple of 5", its name kept).
 */
export function fieldDetail(path: string, message: string): string {
  const property = path.slice(path.lastIndexOf('.') + 1);
  if (message === property || message.startsWith(`${property} `)) return `${path.slice(0, path.length - property.length)}${message}`;
  return path ? `${path}: ${message}` : message;
}

/** Every problem of a refused message, one line each, naming the field by its path (`a.b[0].c` as `a.b.0.c`). */
export function describeErrors(errors: readonly ValidationError[], prefix = ''): string[] {
  return errors.flatMap((e) => {
    const path = prefix ? `${prefix}.${e.property}` : e.property;
    // A value of the wrong type is named by its type alone: what its nested fields lack (`input_artifacts: {}` has no
    // artifact_id) describes a value of another kind.
    return ofWrongKind(e) ? fieldProblems(e, path) : [...fieldProblems(e, path), ...describeErrors(e.children ?? [], path)];
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

/** Whether one of the field's type checks failed because its value is of another kind. */
function ofWrongKind(e: ValidationError): boolean {
  return e.value !== undefined && e.value !== null && Object.entries(e.constraints ?? {}).some(([name, message]) => isWrongKind(name, message, e.value));
}

/**
 * One field's problems in words: a missing field is required (not "too long" or "must match"), a wrong type names the type. A pattern's form in
 * words is the DTO's own message (libs/contracts dto/forms.ts); a pattern without one is never shown: it says nothing
 * to a caller, and class-validator's templating mangles one holding `$&` or `$'`.
 */
function fieldProblems(e: ValidationError, path: string): string[] {
  const constraints = Object.entries(e.constraints ?? {});
  if (!constraints.length) return [];
  // A field that may not be there at all (forbidNonWhitelisted) says so, whatever its value, by its whole path
  // (class-validator's own message names the field alone, also in a nested DTO).
  if (constraints.some(([name]) => name === 'whitelistValidation')) return [DETAIL_WORDS.unknown(path)];
  if (e.value === undefined || e.value === null) return [DETAIL_WORDS.required(path)];
  // A value of the wrong type says the type it must be, alone: its length, range or pattern would describe a value of
  // another kind ("case_id must be shorter than …" for an array).
  const typed = constraints.filter(([name, message]) => isWrongKind(name, message, e.value));
  return (typed.length ? typed : constraints).map(([name, message]) => {
    if (name === 'matches' && isTemplatedPattern(message, e.property)) return DETAIL_WORDS.shapeNotAllowed(path);
    // An element's check names the field once, by its whole path ("each value in a.b must be …").
    const each = `each value in ${e.property} `;
    return message.startsWith(each) ? `each value in ${path} ${message.slice(each.length)}` : fieldDetail(path, message);
  });
}

/** class-validator's own message of @Matches ("x must match /…/ regular expression"), not a DTO's written one. */
function isTemplatedPattern(message: string, property: string): boolean {
  return message.startsWith(`${property} must match `) && message.endsWith(' regular expression');
}
