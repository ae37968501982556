import type { ErrorObject } from 'ajv';
import { contractValidator } from '@runledger/contract-schemas';

/** The governance schemas by short name. */
export type GovernanceSchemaName =
  | 'artifact_ref'
  | 'audit_event'
  | 'export_bundle'
  | 'export_manifest'
  | 'lanes'
  | 'roles'
  | 'run_record';

const BASE = 'https://runledger.dev/schemas/governance/';
const SCHEMA_IDS: Record<GovernanceSchemaName, string> = {
  artifact_ref: `${BASE}artifact_ref.schema.json`,
  audit_event: `${BASE}audit_event.schema.json`,
  export_bundle: `${BASE}export_bundle.schema.json`,
  export_manifest: `${BASE}export_bundle.schema.json#/definitions/manifest`,
  lanes: `${BASE}lanes.schema.json`,
  roles: `${BASE}roles.schema.json`,
  run_record: `${BASE}run_record.schema.json`,
};

/** Result of a schema check: the problems are `<json pointer>: <message>` lines, safe to show. */
export type SchemaCheck = { ok: true } | { ok: false; errors: string[] };

/** Validates a value against one of the governance JSON Schemas, reporting every problem. */
export function checkSchema(name: GovernanceSchemaName, value: unknown): SchemaCheck {
  // The one contract validator (libs/contract-schemas) owns the proto-contracts schemas.
  const validate = contractValidator(SCHEMA_IDS[name]);
  if (validate(value)) return { ok: true };
  return { ok: false, errors: formatSchemaErrors(validate.errors ?? []) };
}

/** Turns ajv errors into bounded, human lines; the offending value is quoted for enum/const misses. */
export function formatSchemaErrors(errors: readonly ErrorObject[]): string[] {
  const lines = errors
    // if/then wrappers only repeat what the nested error already says.
    .filter((e) => e.keyword !== 'if')
    .map((e) => `${e.instancePath || '/'}: ${describe(e)}`);
  return [...new Set(lines)];
}

function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `missing required property "${String(p.missingProperty)}"`;
    case 'additionalProperties':
      return `unknown property "${String(p.additionalProperty)}"`;
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    default:
      return e.message ?? e.keyword;
  }
}
