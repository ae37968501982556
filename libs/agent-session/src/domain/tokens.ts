import type { ConversationMessage, ToolSpec } from './types';

/**
 * Token estimates for the context guard. The contract fixes no algorithm (§8), only that the window is
 * respected; four characters per token is the usual conservative rule for English and JSON.
 */
const CHARS_PER_TOKEN = 4;
/** Role markers and separators every chat message costs on top of its text. */
const MESSAGE_OVERHEAD_TOKENS = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** What committing a tool output will cost; the guard projects with this before the output is committed. */
export function estimateOutputTokens(content: string): number {
  return estimateTokens(content) + MESSAGE_OVERHEAD_TOKENS;
}

export function estimateMessageTokens(message: ConversationMessage): number {
  let text = message.content ?? '';
  if (message.role === 'assistant') {
    text += message.reasoning ?? '';
    for (const call of message.toolCalls ?? []) text += call.id + call.name + call.arguments;
  }
  if (message.role === 'tool') text += message.toolCallId + message.name;
  return estimateTokens(text) + MESSAGE_OVERHEAD_TOKENS;
}

export function estimateMessagesTokens(messages: readonly ConversationMessage[]): number {
  return messages.reduce((sum, m) => sum + estimateMessageTokens(m), 0);
}

/** §2 schemaCtxTokens: what the tool definitions of the upcoming request cost. */
export function estimateSchemaTokens(tools: readonly ToolSpec[]): number {
  if (tools.length === 0) return 0;
  return estimateTokens(JSON.stringify(tools.map((t) => ({ name: t.name, description: t.description ?? '', parameters: t.inputSchema }))));
}
