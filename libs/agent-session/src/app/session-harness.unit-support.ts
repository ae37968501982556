import { ToolRegistry } from '@runledger/agent-runtime';
import { registryTools } from '../adapters/registry-tools';
import type { SessionConfigInput } from '../domain/session-config';
import type { AccountingEntry, ConversationMessage, LlmAccountingEntry, ToolAccountingEntry } from '../domain/types';
import type { SessionLogEntry, SessionPorts } from '../ports';
import { FakeTime } from '../testing/fake-time';
import { ScriptedModel, type ScriptStep } from '../testing/scripted-model';
import { runSession } from './run-session';

export type ToolImpl = (args: Record<string, unknown>) => unknown;

export interface HarnessOptions {
  script: ScriptStep[];
  config?: Partial<SessionConfigInput>;
  tools?: Record<string, ToolImpl>;
  /** Milliseconds of fake time each model call takes. */
  modelLatencyMs?: number;
  ports?: Partial<SessionPorts>;
}

/**
 * A session on a scripted model, local tools (agent-runtime ToolRegistry) and fake time, with every
 * log entry and recorded accounting entry captured.
 */
export function harness(options: HarnessOptions) {
  const time = new FakeTime();
  const model = new ScriptedModel(options.script, options.modelLatencyMs ?? 0, (ms) => time.advance(ms));
  const registry = new ToolRegistry();
  const executed: Array<{ name: string; args: Record<string, unknown> }> = [];
  for (const [name, impl] of Object.entries(options.tools ?? {})) {
    const r = registry.register({
      name,
      description: `test tool ${name}`,
      inputSchema: { type: 'object' },
      execute: (input) => {
        executed.push({ name, args: input as Record<string, unknown> });
        return impl(input as Record<string, unknown>);
      },
    });
    if (!r.ok) throw new Error(r.message);
  }
  const { specs, executor } = registryTools(registry, 'test-mcp');
  const logs: SessionLogEntry[] = [];
  const recorded: AccountingEntry[] = [];
  const config: SessionConfigInput = {
    targets: [{ provider: 'p1', model: 'm1' }],
    toolTransport: 'native',
    systemPrompt: 'You are a test agent.',
    tools: specs,
    ...options.config,
  };
  const ports: SessionPorts & { nonce: () => string } = {
    model,
    tools: executor,
    clock: time,
    sleeper: time,
    recorder: { record: (e) => void recorded.push(e) },
    logger: { log: (e) => void logs.push(e) },
    nonce: () => 'abcd1234',
    ...options.ports,
  };
  return {
    time,
    model,
    logs,
    recorded,
    executed,
    config,
    run: (prompt = 'Do the task.') => runSession(config, prompt, ports),
    logsOf: (event: string) => logs.filter((l) => l.event === event),
  };
}

export const llmEntries = (accounting: readonly AccountingEntry[]) => accounting.filter((e): e is LlmAccountingEntry => e.type === 'llm');
export const toolEntries = (accounting: readonly AccountingEntry[]) => accounting.filter((e): e is ToolAccountingEntry => e.type === 'tool');
export const roles = (conversation: readonly ConversationMessage[]) => conversation.map((m) => m.role);
export const toolMessages = (conversation: readonly ConversationMessage[]) =>
  conversation.filter((m): m is Extract<ConversationMessage, { role: 'tool' }> => m.role === 'tool');
