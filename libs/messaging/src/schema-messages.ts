import type { ErrorObject } from 'ajv';
import { DETAIL_WORDS, fieldDetail } from './validation-messages';

/**
 * A contract validated by its JSON Schema (the campaign requests) is refused in the words a DTO's refusal uses
 * (validation-messages.ts): `campaign_id is required`, `property leads.0.zzz should not exist`, `name must be shorter
 * than or equal to 200 characters`, never Ajv's own ("(root) must have required property 'campaign_id'", "must NOT have
 * additional properties" without the property). `schema` is the validated root schema: a discriminated `oneOf` names
 * its allowed tags from it.
 */
export function describeSchemaErrors(errors: readonly ErrorObject[], schema?: unknown): string[] {
  // A wrapper alone (a value two oneOf branches accept) is the only word there is.
  const relevant = errors.some((e) => !WRAPPERS.has(e.keyword)) ? errors.filter((e) => !WRAPPERS.has(e.keyword)) : errors;
  // A value of the wrong type is told the type alone (as a DTO's is): any other check of the same value is about a
  // value of another kind.
  const wrongType = new Set(relevant.filter((e) => e.keyword === 'type').map((e) => e.instancePath));
  const lines = relevant.filter((e) => e.keyword === 'type' || !wrongType.has(e.instancePath)).map((e) => detailOf(e, schema));
  return [...new Set(lines)];
}

/** Keywords whose error only repeats what the errors under them say (the branch that failed says why). */
const WRAPPERS = new Set(['if', 'anyOf', 'oneOf', 'allOf']);

/** A JSON pointer's tokens (`/leads/0/full_name`: leads, 0, full_name), unescaped. */
const tokens = (pointer: string) => pointer.split('/').slice(1).map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));

/** A JSON pointer (`/leads/0/full_name`) as details name a field (`leads.0.full_name`). */
export function pointerPath(pointer: string): string {
  return tokens(pointer).join('.');
}

const join = (path: string, property: string) => (path ? `${path}.${property}` : property);

/** The type names in class-validator's words (`must be a string`, `must be an integer number` …). */
const TYPE_WORDS: Readonly<Record<string, string>> = {
  string: 'a string', integer: 'an integer number', number: 'a number', boolean: 'a boolean value', object: 'an object', array: 'an array', null: 'null',
};

/** What a value of a format must be, in words. */
const FORMAT_WORDS: Readonly<Record<string, string>> = {
  uuid: 'a UUID',
  'date-time': 'a valid ISO 8601 date string',
  date: 'a date (YYYY-MM-DD)',
  email: 'an email',
  uri: 'a URL address',
  'http-url': 'an absolute http: or https: URL with a host',
};

function detailOf(e: ErrorObject, schema: unknown): string {
  const path = pointerPath(e.instancePath);
  const field = path || 'the request';
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return DETAIL_WORDS.required(join(path, String(p.missingProperty)));
    case 'additionalProperties':
      return DETAIL_WORDS.unknown(join(path, String(p.additionalProperty)));
    case 'type':
      return `${field} must be ${String(p.type).split(',').map((t) => TYPE_WORDS[t] ?? t).join(' or ')}`;
    case 'minLength':
      return `${field} must be longer than or equal to ${String(p.limit)} characters`;
    case 'maxLength':
      return `${field} must be shorter than or equal to ${String(p.limit)} characters`;
    case 'minimum':
      return `${field} must not be less than ${String(p.limit)}`;
    case 'maximum':
      return `${field} must not be greater than ${String(p.limit)}`;
    case 'exclusiveMinimum':
      return `${field} must be greater than ${String(p.limit)}`;
    case 'exclusiveMaximum':
      return `${field} must be less than ${String(p.limit)}`;
    case 'minItems':
      return `${field} must contain at least ${String(p.limit)} elements`;
    case 'maxItems':
      return `${field} must contain no more than ${String(p.limit)} elements`;
    case 'uniqueItems':
      return `All ${field}'s elements must be unique`;
    case 'enum':
      return `${field} must be one of the following values: ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `${field} must be equal to ${String(p.allowedValue)}`;
    case 'pattern':
      return DETAIL_WORDS.shapeNotAllowed(field);
    case 'format':
      return `${field} must be ${FORMAT_WORDS[String(p.format)] ?? `a valid ${String(p.format)}`}`;
    case 'discriminator':
      return discriminatorDetail(path, String(p.tag), p.tagValue, e.schemaPath, schema);
    default:
      return fieldDetail(field, e.message ?? 'is not valid');
  }
}

/**
 * A `oneOf` chosen by a tag property (Ajv's `discriminator`: the agent spec's `kind`): a missing tag is required, any
 * other value is told the tags the contract names.
 */
function discriminatorDetail(path: string, tag: string, value: unknown, schemaPath: string, schema: unknown): string {
  const field = join(path, tag);
  if (value === undefined) return DETAIL_WORDS.required(field);
  const tags = tagsAt(schema, schemaPath.replace(/\/discriminator$/, ''), tag);
  return tags.length ? `${field} must be one of the following values: ${tags.join(', ')}` : `${field} must be one of the kinds its contract names`;
}

/** The `const` (or `enum`) values of `tag` in each `oneOf` branch of the schema at `ref` (`#/properties/agent`). */
function tagsAt(schema: unknown, ref: string, tag: string): string[] {
  let at: unknown = schema;
  for (const part of tokens(ref.replace(/^#/, ''))) at = (at as Record<string, unknown> | undefined)?.[part];
  const branches = (at as { oneOf?: unknown } | undefined)?.oneOf;
  if (!Array.isArray(branches)) return [];
  return branches.flatMap((b: { properties?: Record<string, { const?: unknown; enum?: unknown[] }> }) => {
    const t = b?.properties?.[tag];
    return t?.const !== undefined ? [String(t.const)] : (t?.enum ?? []).map(String);
  });
}
