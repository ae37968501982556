/**
 * Test support (not exported from the lib): an in-memory task gateway and a
 * conversation driver that runs whole turns through classifyIntent + nextStep
 * the way the decision service does.
 */
import { classifyIntent } from './classify';
import { nextStep } from './next-step';
import { createPendingConfirmation, isPendingLive } from './pending';
import type {
  AgentDecision, ConversationEffect, DecisionContext, HistoryMessage, PendingConfirmation, Task, ToolCall, ToolName,
  ToolOutcome, UserIntent,
} from './types';

export const USER = 'user-1';
export const CONVERSATION = '11111111-1111-4111-8111-111111111111';
export const NOW = '2026-01-03T10:00:00.000Z';

/** Deterministic UUID n. */
export function uuid(n: number): string {
  return `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

/** Tasks with ids 1..n, oldest first. */
export function tasks(...descriptions: string[]): Task[] {
  return descriptions.map((description, i) => ({
    task_id: uuid(i + 1),
    description,
    status: 'pending',
    created_at: `2026-01-0${1 + (i % 2)}T0${i % 10}:00:00.000Z`,
  }));
}

type Failure = 'failed' | 'timeout' | 'denied';

/** In-memory gateway with the result shapes of the real one; `failures` makes a tool fail. */
export class FakeGateway {
  readonly calls: ToolCall[] = [];
  failures: Partial<Record<ToolName, Failure>> = {};
  private next: number;

  constructor(public store: Task[] = []) {
    this.next = store.length + 1;
  }

  /** Results are copies, as they would be after crossing the wire (and being replayed from the log). */
  execute(call: ToolCall): ToolOutcome {
    const o = this.run(call);
    return JSON.parse(JSON.stringify(o)) as ToolOutcome;
  }

  private run(call: ToolCall): ToolOutcome {
    this.calls.push(call);
    const failure = this.failures[call.tool_name];
    if (failure) return { call, status: failure, error_code: `E_${failure.toUpperCase()}_db-conn-10.0.0.7` };
    const p = call.parameters as Record<string, string>;
    const find = () => this.store.find((t) => t.task_id === p.task_id);
    switch (call.tool_name) {
      case 'add_task': {
        const task: Task = { task_id: uuid(this.next++), description: p.description, status: 'pending', created_at: NOW };
        this.store.push(task);
        return { call, status: 'ok', result: { task } };
      }
      case 'list_tasks':
        return { call, status: 'ok', result: { tasks: this.store.filter((t) => t.status === 'pending') } };
      case 'complete_task': {
        const t = find();
        if (!t) return { call, status: 'failed', error_code: 'NOT_FOUND' };
        t.status = 'completed';
        t.completed_at = NOW;
        return { call, status: 'ok', result: { task: t } };
      }
      case 'update_task': {
        const t = find();
        if (!t) return { call, status: 'failed', error_code: 'NOT_FOUND' };
        const old_description = t.description;
        t.description = p.new_description;
        return { call, status: 'ok', result: { task: t, old_description } };
      }
      case 'delete_task': {
        const t = find();
        if (!t) return { call, status: 'failed', error_code: 'NOT_FOUND' };
        this.store = this.store.filter((x) => x !== t);
        return { call, status: 'ok', result: { task: t } };
      }
    }
  }
}

/** Result of one driven turn. */
export interface Turn {
  intent: UserIntent;
  decision: AgentDecision;
  effect: ConversationEffect;
  invoked: ToolCall[];
}

/** Runs one turn to the end: classify, then nextStep with every requested call executed. */
export function runTurn(context: DecisionContext, gateway: FakeGateway, now = NOW): Turn {
  const live = isPendingLive(context.pending_confirmation, now);
  const intent = classifyIntent(context.message, context.message_history ?? [], { pendingConfirmation: live });
  const outcomes: ToolOutcome[] = [];
  for (let i = 0; i < 10; i += 1) {
    const step = nextStep({ context, intent, now }, outcomes);
    if (step.kind === 'done') return { intent, decision: step.decision, effect: step.conversation_effect, invoked: outcomes.map((o) => o.call) };
    outcomes.push(gateway.execute(step.call));
  }
  throw new Error('turn did not finish');
}

/** A conversation that keeps history and the pending confirmation between turns, like the service. */
export class Conversation {
  history: HistoryMessage[] = [];
  pending: PendingConfirmation | null = null;
  constructor(readonly gateway: FakeGateway) {}

  say(message: string, now = NOW): Turn {
    const context: DecisionContext = {
      user_id: USER,
      message,
      conversation_id: CONVERSATION,
      message_history: [...this.history],
      pending_confirmation: this.pending,
    };
    const turn = runTurn(context, this.gateway, now);
    if (turn.effect === 'set_pending' && turn.decision.pending_action) {
      this.pending = createPendingConfirmation(turn.decision.pending_action, now);
    }
    if (turn.effect === 'clear_pending') this.pending = null;
    const reply = turn.decision.response_text ?? turn.decision.clarification_question ?? '';
    this.history.push({ role: 'user', content: message, timestamp: now }, { role: 'assistant', content: reply, timestamp: now });
    return turn;
  }
}

/** What the user reads. */
export function shown(d: AgentDecision): string {
  return d.response_text ?? d.clarification_question ?? '';
}
