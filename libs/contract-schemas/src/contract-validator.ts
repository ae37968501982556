import Ajv, { type AnySchema, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { CONTRACT_SCHEMAS } from './schemas.generated';

/**
 * Issue 21 "one validator pipe": the one place that validates JSON against JSON Schema. The proto-contracts schemas
 * are loaded once (scripts/generate-contracts.js lists them all), into one Ajv per mode, and each is compiled on
 * first use, so services that never validate a schema pay nothing for it. Boundaries ask for a contract's
 * validator by its `$id` (a `#/definitions/...` fragment too) or by its path under proto-contracts/; schemas that
 * are not contracts (a tool's input schema, a caller's report schema) are compiled here too, never by an Ajv of
 * their own.
 */
export type SchemaMode = 'plain' | 'defaults';

/**
 * Format `http-url`: an absolute http: or https: URL with a host, scheme in any case. JSON Schema's `uri` also admits
 * javascript:, data: or file:, which no link a person may follow should carry; a user name before the host
 * (`https://linkedin.com@evil.example`) disguises where it leads, and `https:///host` or control characters are not
 * what a person reads. scripts/generate-contracts.js knows the name too.
 */
function isHttpUrl(value: string): boolean {
  if (!/^https?:\/\/[^/\\]/i.test(value) || /[\s\u0000-\u001f\u007f]/.test(value)) return false;
  try {
    const url = new URL(value);
    return ['http:', 'https:'].includes(url.protocol) && url.username === '' && url.password === '' && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * Draft-07, every error reported, formats checked; `defaults` also fills schema defaults into the value. A `oneOf`
 * with a `discriminator` (OpenAPI's, as Ajv reads it: the campaign agent spec's `kind`) validates the branch its tag
 * names only, so a refusal names that branch's problems, or the tag, instead of every branch's.
 */
function createAjv(mode: SchemaMode): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, logger: false, discriminator: true, useDefaults: mode === 'defaults' });
  addFormats(ajv);
  ajv.addFormat('http-url', { type: 'string', validate: isHttpUrl });
  return ajv;
}

const contracts = new Map<SchemaMode, Ajv>();

function contractAjv(mode: SchemaMode): Ajv {
  let ajv = contracts.get(mode);
  if (!ajv) {
    ajv = createAjv(mode);
    // A schema without $id is keyed by its path, as proto-contracts/event-types.json names schemas. Not checked against
    // the meta-schema again here (35-50 ms of every service's start): `npm run contracts:check` compiles each one.
    for (const { path, schema } of CONTRACT_SCHEMAS) ajv.addSchema(schema as AnySchema, (schema as { $id?: string }).$id ? undefined : path, undefined, false);
    contracts.set(mode, ajv);
  }
  return ajv;
}

/**
 * The compiled validator of one contract schema: `ref` is its `$id` (optionally with a `#/definitions/x` fragment)
 * or its path under proto-contracts/ (`schemas/events/run-created.schema.json`). `defaults` validators fill in the
 * schema's defaults (on the value handed in: pass a copy when the caller's value must stay as it was).
 */
export function contractValidator(ref: string, mode: SchemaMode = 'plain'): ValidateFunction {
  const ajv = contractAjv(mode);
  const byPath = CONTRACT_SCHEMAS.find((s) => s.path === ref)?.schema as { $id?: string } | undefined;
  const validate = ajv.getSchema(byPath?.$id ?? ref);
  if (!validate) throw new Error(`no contract schema ${ref} in proto-contracts`);
  return validate;
}

const adHoc = new Map<SchemaMode, Ajv>();

/**
 * A validator for a schema that is not a contract file (a tool's input schema, a model output schema, a report
 * schema a caller sends). Throws when the schema itself is invalid; callers that take schemas from outside catch it.
 * The caller keeps the function: the schema is dropped from the instance once compiled, so schemas that come with
 * every request do not pile up and two schemas may carry the same $id.
 */
export function compileSchema(schema: AnySchema, mode: SchemaMode = 'plain'): ValidateFunction {
  let ajv = adHoc.get(mode);
  if (!ajv) adHoc.set(mode, (ajv = createAjv(mode)));
  try {
    return ajv.compile(schema);
  } finally {
    ajv.removeSchema(schema);
  }
}

export type { AnySchema, ErrorObject, ValidateFunction };
