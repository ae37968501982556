import { ToolDefinition, ToolRegistry } from '@runledger/agent-runtime';
import { INTERVIEW_TOOLS } from './interview-tools';
import { OUTREACH_TOOLS } from './outreach-tools';
import { TASK_TOOLS } from './task-tools';

/** Every tool the gateway can run. A lane still has to allow a tool before it runs. */
export const ALL_TOOLS: ToolDefinition[] = [...Object.values(TASK_TOOLS), ...Object.values(INTERVIEW_TOOLS), ...Object.values(OUTREACH_TOOLS)];

export function buildToolRegistry(tools: ToolDefinition[] = ALL_TOOLS): ToolRegistry {
  const registry = new ToolRegistry();
  for (const tool of tools) {
    const registered = registry.register(tool);
    if (!registered.ok) throw new Error(registered.message);
  }
  return registry;
}
