import { readFileSync } from 'node:fs';
import type { McpConfig, McpServerConfig } from '@runledger/agent-session';
import { settingText } from '@runledger/kernel';

const SERVER_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/**
 * RL_MCP_SERVERS names a JSON file `{ "mcpServers": { "<name>": {...} }, "queues": { "<name>": { "concurrent": N } } }`.
 * Every queue binding must name a defined queue (§7); `default` is added when missing.
 */
export function mcpConfigFromEnv(env: NodeJS.ProcessEnv = process.env): McpConfig {
  const file = settingText('RL_MCP_SERVERS', env);
  if (!file) return { mcpServers: {}, queues: { default: { concurrent: 32 } } };
  return parseMcpConfig(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>, file);
}

export function parseMcpConfig(raw: Record<string, unknown>, origin: string): McpConfig {
  const errors: string[] = [];
  const queues: Record<string, { concurrent: number }> = { default: { concurrent: 32 }, ...((raw.queues ?? {}) as Record<string, { concurrent: number }>) };
  for (const [name, q] of Object.entries(queues)) if (!Number.isInteger(q.concurrent) || q.concurrent < 1) errors.push(`queues.${name}.concurrent must be a positive integer`);
  const servers = (raw.mcpServers ?? {}) as Record<string, McpServerConfig>;
  for (const [name, s] of Object.entries(servers)) {
    if (!SERVER_NAME.test(name)) errors.push(`mcpServers.${name}: a server name is lowercase letters, digits, - and _`);
    if (s.type === 'http' ? typeof s.url !== 'string' : typeof (s as { command?: unknown }).command !== 'string') errors.push(`mcpServers.${name}: needs ${s.type === 'http' ? 'a url' : 'a command'}`);
    if (s.queue !== undefined && !queues[s.queue]) errors.push(`mcpServers.${name}.queue references unknown queue '${s.queue}'`);
  }
  if (errors.length > 0) throw new Error(`${origin}: ${errors.join('; ')}`);
  return { mcpServers: servers, queues };
}
