import type { ValidationError } from 'class-validator';

/**
 * The form a field of that name must have, in words, for fields whose DTOs check it with a pattern (the same names
 * mean the same thing in every contract DTO). A pattern itself is never shown: it says nothing to a caller, and
 * class-validator's message templating mangles one holding `$&` or `$'`.
 */
const FORMS: Readonly<Record<string, string>> = {
  agent_name: 'an agent name: an upper-case letter, then upper-case letters, digits or _ (2-64 in all)',
  agent: 'a profile id: lower-case words of letters and digits joined by -',
  case_id: 'a case id: a letter or digit, then letters, digits, . _ : or -',
  artifact_id: 'an artifact id: a letter or digit, then letters, digits, . _ : or -',
  kind: 'an input kind: a lower-case letter, then lower-case letters, digits or _',
  media_type: 'a media type such as application/json (type/subtype, lower case, parameters after ;)',
  sha256: 'a SHA-256 digest: 64 lower-case hexadecimal digits',
  request_hash_sha256: 'a SHA-256 digest: 64 lower-case hexadecimal digits',
};

/** Every problem of a refused message, one line each, naming the field by its path (`a.b[0].c` as `a.b.0.c`). */
export function describeErrors(errors: readonly ValidationError[], prefix = ''): string[] {
  return errors.flatMap((e) => {
    const path = prefix ? `${prefix}.${e.property}` : e.property;
    return [...fieldProblems(e, path), ...describeErrors(e.children ?? [], path)];
  });
}

/** One field's problems in words: a missing field is required (not "too long" or "must match"); a pattern is a form. */
function fieldProblems(e: ValidationError, path: string): string[] {
  const constraints = Object.entries(e.constraints ?? {});
  if (!constraints.length) return [];
  // A field that may not be there at all (forbidNonWhitelisted) says so itself, whatever its value.
  const unknown = constraints.filter(([name]) => name === 'whitelistValidation').map(([, message]) => message);
  if (unknown.length) return unknown;
  if (e.value === undefined || e.value === null) return [`${path} is required`];
  return constraints.map(([name, message]) => {
    if (name === 'matches' && isTemplatedPattern(message, e.property)) {
      const form = FORMS[e.property];
      return form ? `${path} must be ${form}` : `${path} has characters or a shape its contract does not allow`;
    }
    return message.startsWith(e.property) ? `${prefix(path, e.property)}${message}` : `${path}: ${message}`;
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
