import type { AnySchema, ErrorObject, ValidateFunction } from 'ajv';

// Schemas are compiled by the one validator of libs/contract-schemas (issue 21): `contractValidator` for the
// proto-contracts files (proposals, snapshots), `compileSchema` for the lib's own and callers' schemas.

/** "/task/description must NOT have fewer than 10 characters" */
export function formatAjvErrors(errors: readonly ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => {
    const where = e.instancePath === '' ? '(root)' : e.instancePath;
    const extra =
      e.keyword === 'enum'
        ? `: ${(e.params as { allowedValues: unknown[] }).allowedValues.map(String).join(', ')}`
        : e.keyword === 'additionalProperties'
          ? `: '${(e.params as { additionalProperty: string }).additionalProperty}'`
          : e.keyword === 'const'
            ? `: ${JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)}`
            : '';
    return `${where} ${e.message ?? 'is invalid'}${extra}`;
  });
}

export type { AnySchema, ErrorObject, ValidateFunction };
