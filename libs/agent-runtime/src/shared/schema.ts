import Ajv, { type AnySchema, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * One ajv configuration for the whole lib: draft-07, every error reported
 * (validation is total), formats (uuid, uri, date-time) checked. No coercion and
 * no defaults, so validating never changes the value that was validated.
 */
export function createAjv(options: { strict?: boolean; useDefaults?: boolean } = {}): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: options.strict ?? true,
    useDefaults: options.useDefaults ?? false,
    logger: false,
  });
  addFormats(ajv);
  return ajv;
}

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
