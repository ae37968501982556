import { DbResult, SUBJECTS } from '@runledger/contracts';
import { deterministicUuid } from '@runledger/kernel';
import { Task, TASK_TOOL_SCHEMAS, ToolName } from '@runledger/task-assistant';
import type { ToolDefinition } from '@runledger/agent-runtime';
import { childScopeOf, RETRY } from '@runledger/runs';
import { currentInvocation } from './invocation-context';

/** A task as stored by db-write (collection `tasks`, user-scoped). */
interface StoredTask extends Task {
  owner_id: string;
}

/** Thrown when db-write says no such task for this user; surfaces as a NOT_FOUND tool failure. */
class TaskNotFound extends Error {
  readonly code = 'NOT_FOUND';
  constructor() {
    super('task not found');
  }
}

async function db(subject: string, body: Record<string, unknown>): Promise<DbResult> {
  const ctx = currentInvocation();
  // A call the gateway already recorded as timed out must not write afterwards (nor read: nothing waits for it).
  if (ctx.signal?.aborted) throw new Error('invocation abandoned after timeout');
  const governance = childScopeOf(ctx.governance, ctx.child_run_id);
  // A db-write restart is ridden out within the tool's own timeout (which aborts the wait): writes are idempotent.
  const result = await ctx.bus.requestIdempotent<DbResult>(subject, { ...body, governance }, { timeoutMs: 3_000, retryDelayMs: RETRY.withinDeadline, signal: ctx.signal });
  if (result.status === 'not_found') throw new TaskNotFound();
  if (result.status !== 'ok') throw new Error(`db ${result.status}: ${result.error?.error_code ?? 'unknown'}`);
  return result;
}

const publicTask = (doc: Record<string, unknown> | undefined): Task => {
  const { owner_id: _owner, ...task } = (doc ?? {}) as unknown as StoredTask;
  return task;
};

function write(suffix: string, body: Record<string, unknown>): Promise<DbResult> {
  const ctx = currentInvocation();
  if (ctx.effects && !ctx.signal?.aborted) ctx.effects.started = true;
  return db(SUBJECTS.dbWrite, { write_id: `${ctx.child_run_id}:${suffix}`, collection: 'tasks', ...body });
}

/** The five governed task tools of contract 000; every effect goes through db-write. */
export const TASK_TOOLS: Record<ToolName, ToolDefinition> = {
  add_task: {
    name: 'add_task',
    description: 'Add a task for the signed-in user.',
    inputSchema: TASK_TOOL_SCHEMAS.add_task,
    execute: async (input) => {
      const { description } = input as { description: string };
      const ctx = currentInvocation();
      // The task id derives from the call, so a retried call re-creates nothing.
      const task_id = deterministicUuid('task', ctx.child_run_id);
      const res = await write('add', { operation: 'append', document_id: task_id, document: { task_id, description, status: 'pending', created_at: ctx.clock.now().toISOString(), completed_at: null } });
      return { task: publicTask(res.document) };
    },
  },
  list_tasks: {
    name: 'list_tasks',
    description: "List the signed-in user's tasks, oldest first.",
    inputSchema: TASK_TOOL_SCHEMAS.list_tasks,
    execute: async (input) => {
      const { include_completed } = input as { include_completed?: boolean };
      const res = await db(SUBJECTS.dbRead, { collection: 'tasks', filter: include_completed ? {} : { status: 'pending' }, limit: 1000 });
      const tasks = (res.documents ?? []).map(publicTask).sort((a, b) => a.created_at.localeCompare(b.created_at) || a.task_id.localeCompare(b.task_id));
      return { tasks };
    },
  },
  update_task: {
    name: 'update_task',
    description: 'Change the description of one task.',
    inputSchema: TASK_TOOL_SCHEMAS.update_task,
    execute: async (input) => {
      const { task_id, new_description } = input as { task_id: string; new_description: string };
      const res = await write('update', { operation: 'update', document_id: task_id, patch: { description: new_description } });
      return { task: publicTask(res.document), old_description: (res as DbResult & { previous?: StoredTask }).previous?.description ?? '' };
    },
  },
  complete_task: {
    name: 'complete_task',
    description: 'Mark one task as completed.',
    inputSchema: TASK_TOOL_SCHEMAS.complete_task,
    execute: async (input) => {
      const { task_id } = input as { task_id: string };
      const res = await write('complete', { operation: 'update', document_id: task_id, patch: { status: 'completed', completed_at: currentInvocation().clock.now().toISOString() } });
      return { task: publicTask(res.document) };
    },
  },
  delete_task: {
    name: 'delete_task',
    description: 'Delete one task (only after the user confirmed).',
    inputSchema: TASK_TOOL_SCHEMAS.delete_task,
    execute: async (input) => {
      const { task_id } = input as { task_id: string };
      // A soft delete: the task leaves every list but nothing is lost (the TASKS lane has no hard delete).
      const res = await write('delete', { operation: 'update', document_id: task_id, patch: { status: 'deleted', deleted_at: currentInvocation().clock.now().toISOString() } });
      return { task: publicTask((res as DbResult & { previous?: Record<string, unknown> }).previous) };
    },
  },
};
