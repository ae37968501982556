import type { ToolRegistry } from './tool-registry';
import { toolFailure, toolSuccess, type ToolExecutionResult } from './tool-result';

/**
 * Runs a registered tool and always resolves to a frozen result:
 * unknown tool → TOOL_NOT_FOUND (INV-TOOL-003), input failing the tool's schema →
 * INVALID_INPUT without running any tool code (INV-TOOL-001), tool throwing →
 * EXECUTION_FAILED. Timeouts, lanes and audit belong to the tool gateway.
 */
export async function executeTool(registry: ToolRegistry, name: string, input: unknown): Promise<ToolExecutionResult> {
  const tool = registry.isToolAvailable(name) ? registry.get(name) : undefined;
  if (tool === undefined) {
    return toolFailure(name, 'TOOL_NOT_FOUND', `tool '${name}' is not registered (available: ${registry.list().join(', ') || 'none'})`);
  }
  const violations = tool.validateInput(input);
  if (violations.length > 0) {
    return toolFailure(name, 'INVALID_INPUT', `invalid input for tool '${name}': ${violations.join('; ')}`, violations);
  }
  let output: unknown;
  try {
    output = await tool.execute(input);
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    // A tool that fails with a stable code (NOT_FOUND …) keeps it, so callers can answer precisely.
    const code = typeof (cause as { code?: unknown })?.code === 'string' && /^[A-Z][A-Z0-9_.]{1,63}$/.test((cause as { code: string }).code) ? (cause as { code: string }).code : 'EXECUTION_FAILED';
    return toolFailure(name, code, `tool '${name}' failed: ${message}`);
  }
  return toolSuccess(name, output);
}
