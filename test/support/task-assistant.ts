/**
 * Helpers for the task-assistant e2e tests (contract 000): talk to `agents.task-assistant.process` over the
 * real bus as one user in one conversation, and read back what the run recorded.
 */
import { randomUUID } from 'node:crypto';
import type { AgentDecision, AuditRecord, PendingConfirmation } from '@runledger/task-assistant';
import type { TestStack } from './stack';

export const PROCESS = 'agents.task-assistant.process';
export const AUDIT_QUERY = 'rl.audit.query';

export type DecisionReply = AgentDecision & { run_id: string };
export type AuditRow = AuditRecord & { run_id: string };

/** Optional caller-sent context (DecisionContext's optional fields, plus anything hostile a test wants to send). */
export type Extra = Record<string, unknown>;

/** What the user reads: the reply text, else the clarification question. */
export function shown(reply: DecisionReply): string {
  return reply.response_text ?? reply.clarification_question ?? '';
}

/** Sends a raw request and returns the decoded reply (ok or wire error). */
export async function send<T = DecisionReply>(stack: TestStack, body: unknown): Promise<{ ok: boolean; body: T }> {
  return stack.request<T>(PROCESS, body, 30_000);
}

/** One user in one conversation; a fresh user id and conversation id per instance keeps tests independent. */
export class Conversation {
  constructor(
    readonly stack: TestStack,
    readonly user_id = `u-${randomUUID()}`,
    readonly conversation_id = randomUUID(),
  ) {}

  /** Sends one message; fails the test on a wire error (the API answers every message with a decision). */
  async say(message: string, extra: Extra = {}): Promise<DecisionReply> {
    const r = await send(this.stack, { user_id: this.user_id, conversation_id: this.conversation_id, message, ...extra });
    if (!r.ok) throw new Error(`wire error for ${JSON.stringify(message)}: ${JSON.stringify(r.body)}`);
    return r.body;
  }

  /** Adds tasks in order (oldest first in every list), checking each was added. */
  async add(...descriptions: string[]): Promise<void> {
    for (const d of descriptions) {
      const r = await this.say(`add task ${d}`);
      if (r.response_text !== `I've added '${d}' to your tasks.`) throw new Error(`could not seed '${d}': ${shown(r)}`);
    }
  }

  /** The user's open task descriptions, read through the assistant itself. */
  async list(): Promise<string[]> {
    const r = await this.say('show my tasks');
    const text = shown(r);
    if (text === "You don't have any tasks yet.") return [];
    return text.split('\n').slice(1).map((l) => l.replace(/^\d+\. /, ''));
  }

  /** The task id the assistant resolves a reference to, via the delete confirmation (then declined). */
  async taskId(reference: string): Promise<string> {
    const r = await this.say(`delete ${reference}`);
    if (!r.pending_action) throw new Error(`no pending action for '${reference}': ${shown(r)}`);
    await this.say('no');
    return r.pending_action.task_id;
  }
}

/** A caller-sent pending confirmation for a delete, live for 5 minutes unless `expiresInMs` says otherwise. */
export function pendingFor(task_id: string, task_description: string, expiresInMs = 5 * 60_000): PendingConfirmation {
  const now = Date.now();
  return {
    action_type: 'DELETE_TASK', task_id, task_description,
    created_at: new Date(now - 1000).toISOString(), expires_at: new Date(now + expiresInMs).toISOString(),
  };
}

/** The intent the run classified (DecisionRecorded carries it next to the decision). */
export async function intentOf(stack: TestStack, runId: string): Promise<string | null> {
  const events = await stack.runEvents(runId);
  const recorded = events.find((e) => e.type === 'DecisionRecorded')?.data as { intent: { intent_type: string } | null } | undefined;
  return recorded?.intent?.intent_type ?? null;
}

/** The run's event types, in log order. */
export async function eventTypes(stack: TestStack, runId: string): Promise<string[]> {
  return (await stack.runEvents(runId)).map((e) => e.type);
}

/** Audit records of a conversation, waiting until at least `count` are indexed (the ledger is eventually consistent). */
export async function auditOf(stack: TestStack, conversationId: string, count = 1): Promise<AuditRow[]> {
  return stack.waitFor(async () => {
    const r = await stack.request<{ records?: AuditRow[] }>(AUDIT_QUERY, { conversation_id: conversationId });
    return r.ok && (r.body.records?.length ?? 0) >= count ? r.body.records : undefined;
  }, 15_000);
}

/** Text that must never reach a user: stack frames, error class names, connection strings, schema and prompt words. */
const LEAK_PATTERNS: RegExp[] = [
  /Error\b/, /\bstack\b/i, /\n\s*at /, /\bat \S+ \(/, /\(\S+:\d+:\d+\)/, /nats:\/\//i, /mongodb(\+srv)?:\/\//i, /127\.0\.0\.1|localhost/i,
  /inputSchema|\$schema|additionalProperties|json-schema|minLength|maxLength/i, /system prompt|Classify the user's message/i,
  /\bSELECT\b|\bINSERT\b|\bDROP\b|owner_id|collection|db-write|tool-gateway|rl\.log|jetstream/i, /undefined|null|\[object Object\]/,
  /REQUEST\.INVALID|AUTH\.MISSING|TOOL\.(FAILED|TIMEOUT)|EXECUTION_FAILED|injected fault/,
];

/** The leak patterns a text matches, plus any of `secrets` it contains (e.g. another user's id). */
export function leaksIn(text: string, secrets: string[] = []): string[] {
  return [...LEAK_PATTERNS.filter((re) => re.test(text)).map(String), ...secrets.filter((s) => s && text.includes(s))];
}
