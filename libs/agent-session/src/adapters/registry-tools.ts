import { executeTool, type ToolRegistry } from '@runledger/agent-runtime';
import type { ToolSpec } from '../domain/types';
import type { ToolExecutor } from '../ports';

/**
 * Local tools from an agent-runtime ToolRegistry: the specs to offer the model and an executor that runs
 * them through `executeTool` (schema check first, thrown errors become failures). For tests and the CLI;
 * in the decision service tools go to the tool gateway instead.
 */
export function registryTools(registry: ToolRegistry, mcpServer = 'local'): { specs: ToolSpec[]; executor: ToolExecutor } {
  const specs = registry.list().map((name) => {
    const tool = registry.get(name)!;
    return {
      name,
      mcpServer,
      inputSchema: tool.inputSchema as Record<string, unknown>,
      ...(tool.description ? { description: tool.description } : {}),
    };
  });
  const executor: ToolExecutor = {
    async execute(name, args) {
      const result = await executeTool(registry, name, args);
      return result.success ? { ok: true, output: result.output } : { ok: false, error: result.error.message };
    },
  };
  return { specs, executor };
}
