import { freezeDeep, toFrozenData, type DeepReadonly } from '../shared/freeze';

/** Codes this lib produces; the tool gateway may add its own (e.g. a timeout or lane denial). */
export type KnownToolErrorCode = 'TOOL_NOT_FOUND' | 'INVALID_INPUT' | 'EXECUTION_FAILED' | 'INVALID_OUTPUT';
export type ToolErrorCode = KnownToolErrorCode | (string & {});

export interface ToolError {
  readonly code: ToolErrorCode;
  readonly message: string;
  readonly details?: readonly string[];
}

export type ToolExecutionResult = DeepReadonly<
  | { success: true; toolName: string; output: unknown; metadata?: Record<string, unknown> }
  | { success: false; toolName: string; error: ToolError; metadata?: Record<string, unknown> }
>;

export type ToolResultSpec =
  | { success: true; toolName: string; output: unknown; metadata?: Record<string, unknown> }
  | { success: false; toolName: string; error: ToolError; metadata?: Record<string, unknown> };

/**
 * The only way to make a `ToolExecutionResult` (INV-TOOL-002). Payloads are copied
 * through their JSON form (what the log will hold) and the whole result is deeply
 * frozen, so neither the tool nor the caller can change it afterwards. An output
 * that JSON cannot carry becomes an INVALID_OUTPUT failure instead of a throw.
 */
export function createToolResult(spec: ToolResultSpec): ToolExecutionResult {
  try {
    const metadata = spec.metadata === undefined ? {} : { metadata: toFrozenData(spec.metadata) as Record<string, unknown> };
    if (spec.success) {
      return freezeDeep({ success: true as const, toolName: spec.toolName, output: toFrozenData(spec.output) ?? null, ...metadata });
    }
    const error: ToolError = {
      code: spec.error.code,
      message: spec.error.message,
      ...(spec.error.details === undefined ? {} : { details: [...spec.error.details] }),
    };
    return freezeDeep({ success: false as const, toolName: spec.toolName, error, ...metadata });
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    return toolFailure(spec.toolName, 'INVALID_OUTPUT', `tool '${spec.toolName}' returned a value that is not JSON data: ${message}`);
  }
}

export function toolSuccess(toolName: string, output: unknown, metadata?: Record<string, unknown>): ToolExecutionResult {
  return createToolResult({ success: true, toolName, output, ...(metadata === undefined ? {} : { metadata }) });
}

export function toolFailure(
  toolName: string,
  code: ToolErrorCode,
  message: string,
  details?: readonly string[],
): ToolExecutionResult {
  return createToolResult({
    success: false,
    toolName,
    error: { code, message, ...(details === undefined ? {} : { details }) },
  });
}
