import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
// The JSON Schemas under proto-contracts/ are the single source; they are bundled as JSON modules,
// so validation reads no file at run time and stays pure.
import artifactRefSchema from '../../../../proto-contracts/schemas/governance/artifact_ref.schema.json';
import auditEventSchema from '../../../../proto-contracts/schemas/governance/audit_event.schema.json';
import exportBundleSchema from '../../../../proto-contracts/schemas/governance/export_bundle.schema.json';
import lanesSchema from '../../../../proto-contracts/schemas/governance/lanes.schema.json';
import rolesSchema from '../../../../proto-contracts/schemas/governance/roles.schema.json';
import runRecordSchema from '../../../../proto-contracts/schemas/governance/run_record.schema.json';

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

let ajv: Ajv | undefined;
const compiled = new Map<GovernanceSchemaName, ValidateFunction>();

// Compiled on first use, not at import, so services that never validate pay nothing.
function validatorFor(name: GovernanceSchemaName): ValidateFunction {
  let validate = compiled.get(name);
  if (!validate) {
    if (!ajv) {
      ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, strictRequired: false });
      addFormats(ajv);
      for (const schema of [artifactRefSchema, auditEventSchema, exportBundleSchema, lanesSchema, rolesSchema, runRecordSchema]) {
        ajv.addSchema(schema);
      }
    }
    validate = ajv.getSchema(SCHEMA_IDS[name]);
    if (!validate) throw new Error(`governance schema not registered: ${name}`);
    compiled.set(name, validate);
  }
  return validate;
}

/** Validates a value against one of the governance JSON Schemas, reporting every problem. */
export function checkSchema(name: GovernanceSchemaName, value: unknown): SchemaCheck {
  const validate = validatorFor(name);
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
