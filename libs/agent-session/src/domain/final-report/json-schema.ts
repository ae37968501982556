import { compileSchema as compileWithContracts } from '@runledger/contract-schemas';

/** One schema violation, with the JSON Pointer of the offending value. */
export interface SchemaIssue {
  readonly path: string;
  readonly message: string;
}

export type SchemaCheck = (value: unknown) => SchemaIssue[];

/** Compiles a JSON Schema; lenient about unknown keywords (user schemas carry annotations), strict about data. */
export function compileSchema(schema: Readonly<Record<string, unknown>>): { ok: true; check: SchemaCheck } | { ok: false; error: string } {
  try {
    const validate = compileWithContracts(schema);
    return {
      ok: true,
      check: (value) =>
        validate(value)
          ? []
          : (validate.errors ?? []).map((e) => ({ path: e.instancePath, message: `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}` })),
    };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

export function formatIssues(issues: readonly SchemaIssue[]): string {
  return issues.map((i) => i.message).join('; ');
}
