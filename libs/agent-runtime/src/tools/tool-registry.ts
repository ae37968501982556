import { err, ok, type Result } from '../shared/result';
import { compileSchema } from '@runledger/contract-schemas';
import { formatAjvErrors, type AnySchema, type ValidateFunction } from '../shared/schema';

export interface ToolDefinition {
  readonly name: string;
  readonly description?: string;
  /** JSON Schema (draft-07) every input must satisfy before `execute` is called. */
  readonly inputSchema: AnySchema;
  readonly execute: (input: unknown) => Promise<unknown> | unknown;
}

export interface RegisteredTool extends ToolDefinition {
  /** Returns the schema violations of `input`; empty when valid. */
  readonly validateInput: (input: unknown) => string[];
}

export type ToolRegistryErrorCode = 'TOOL.INVALID_DEFINITION' | 'TOOL.DUPLICATE';

/**
 * Compiles a JSON Schema into an input check. Lenient about unknown keywords
 * (tool schemas often carry vendor annotations) but strict about data.
 */
export function createInputValidator(
  schema: AnySchema,
): Result<(input: unknown) => string[], 'TOOL.INVALID_DEFINITION'> {
  let validate: ValidateFunction;
  try {
    validate = compileSchema(schema);
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    return err('TOOL.INVALID_DEFINITION', `input schema does not compile: ${message}`);
  }
  return ok((input: unknown) => (validate(input) ? [] : formatAjvErrors(validate.errors)));
}

export class ToolRegistry {
  private readonly tools = new Map<string, RegisteredTool>();
  /** Compiles the input schema up front so a broken schema fails registration, not a call. */
  register(tool: ToolDefinition): Result<RegisteredTool, ToolRegistryErrorCode> {
    if (tool.name.trim().length === 0) return err('TOOL.INVALID_DEFINITION', 'tool name must not be empty');
    if (this.tools.has(tool.name)) return err('TOOL.DUPLICATE', `tool '${tool.name}' is already registered`);
    const validator = createInputValidator(tool.inputSchema);
    if (!validator.ok) return err(validator.code, `tool '${tool.name}': ${validator.message}`);
    const registered: RegisteredTool = Object.freeze({ ...tool, validateInput: validator.value });
    this.tools.set(tool.name, registered);
    return ok(registered);
  }

  isToolAvailable(name: string): boolean {
    return this.tools.has(name);
  }

  get(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }

  list(): string[] {
    return [...this.tools.keys()].sort();
  }
}
