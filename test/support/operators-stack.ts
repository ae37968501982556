/**
 * The stack the operator-command suites (test/operators-runs*.e2e.spec.ts) share the set-up of: one per file, its
 * spans and metrics exported to a real OTLP receiver (runs carry trace ids to show). The `runledger` CLI runs as a
 * subprocess against it. Two tool drills keep a run open while a test acts on it:
 * - the interview agent's first tool and the task assistant's add_task are held (RL_TOOL_FAULTS `hold:`) while the
 *   test holds them (`holding`, `cancelInsideTool`), and go on as soon as it lets them go: a run is cancelled inside a
 *   tool however busy the machine, and no test waits longer than it needs;
 * - list_tasks is slowed (well within the tool timeout): a user erased during it must be dropped by the gateway's key
 *   cache before the call goes on, which happens a moment after `erase` returns (at most the follower's look, 5 s) and
 *   cannot be observed from here, so that call keeps its margin (README "Erasure").
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunsListResult } from '@runledger/contracts';
import { OtlpReceiver, startOtlpReceiver } from '@runledger/testing';
import { CliResult, runCli } from './cli';
import { Reply, TestStack } from './stack';

/** A run append's span: its subject names the run's owner (issue 23), `publish rl.log.run.<owner>.{id}`. */
export const RUN_PUBLISH = /^publish rl\.log\.run\.[a-z-]+\.\{id\}$/;

export interface OperatorsStack {
  readonly stack: TestStack;
  readonly otlp: OtlpReceiver;
  /** `runledger …` as the operator. */
  cli(...args: string[]): Promise<CliResult>;
  /** `runledger runs list --json …`, which must succeed. */
  listJson(...args: string[]): Promise<RunsListResult>;
  /** Runs `fn` with the held tools (interview.prompt.next, add_task) held: a call to one waits until `fn` ends (or `cancelInsideTool` lets it go). */
  holding<T>(fn: () => Promise<T>): Promise<T>;
  /** `runs cancel RUN --wait` of a run held inside a tool: the hold is released once the cancel is recorded. */
  cancelInsideTool(runId: string): Promise<CliResult>;
  /** The task run of a conversation, once it is inside its first (held or slowed) tool call. */
  taskRunInToolCall(conversationId: string): Promise<string>;
  /** A task-assistant request whose user is erased (as the admin) while the run is inside its (slowed) list_tasks call. */
  eraseDuringToolCall(): Promise<{ user_id: string; runId: string; answered: Reply<{ run_id: string; response_text: string }> }>;
}

/** Starts the stack in `beforeAll` and stops it in `afterAll` of the calling file. */
export function useOperatorsStack(): OperatorsStack {
  const held: { stack?: TestStack; otlp?: OtlpReceiver; holdDir?: string } = {};
  // The hold is a file only this test process writes; the gateway only looks whether it is there.
  const holdFile = () => join(held.holdDir ?? '', 'tools-held');
  const release = () => rmSync(holdFile(), { force: true });
  beforeAll(async () => {
    held.holdDir = mkdtempSync(join(tmpdir(), 'rl-tool-hold-'));
    held.otlp = await startOtlpReceiver();
    held.stack = await TestStack.start({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: held.otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '200', OTEL_BSP_MAX_QUEUE_SIZE: '200000', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2048', OTEL_METRIC_EXPORT_INTERVAL: '1000', TOOL_TIMEOUT_MS: '60000' },
      serviceEnv: { 'tool-gateway': { RL_TOOL_FAULTS: `interview.prompt.next=hold:${holdFile()},add_task=hold:${holdFile()},list_tasks=delay:15000` } },
    });
  });
  afterAll(async () => {
    release();
    await held.stack?.stop();
    await held.otlp?.stop();
    if (held.holdDir) rmSync(held.holdDir, { recursive: true, force: true });
  });
  const ops: OperatorsStack = {
    get stack() {
      if (!held.stack) throw new Error('useOperatorsStack: the stack starts in beforeAll');
      return held.stack;
    },
    get otlp() {
      if (!held.otlp) throw new Error('useOperatorsStack: the OTLP receiver starts in beforeAll');
      return held.otlp;
    },
    cli: (...args) => runCli(ops.stack.url, args, ops.stack.cliEnv('operator')),
    listJson: async (...args) => {
      const r = await ops.cli('runs', 'list', '--json', ...args);
      expect(r).toMatchObject({ code: 0, stderr: '' });
      return JSON.parse(r.stdout) as RunsListResult;
    },
    holding: async (fn) => {
      writeFileSync(holdFile(), '');
      try {
        return await fn();
      } finally {
        release();
      }
    },
    cancelInsideTool: async (runId) => {
      const cancelled = ops.cli('runs', 'cancel', runId, '--reason', 'operator drill', '--wait', '--timeout', '120');
      try {
        await ops.stack.waitFor(async () => (await ops.stack.runEvents(runId)).some((e) => e.type === 'RunCancelRequested'), 60_000);
      } finally {
        release();
      }
      return cancelled;
    },
    taskRunInToolCall: (conversationId) => ops.stack.waitFor(async () => {
      const created = await ops.stack.log.replay<string | null>((found, e) => found ?? (e.type === 'RunCreated' && (e.data as { conversation_id?: string }).conversation_id === conversationId ? (e.data as { run_id: string }).run_id : null), null, { filter: 'rl.log.run.>' });
      return created.state && (await ops.stack.runEvents(created.state)).some((e) => e.type === 'ToolCallRequested') ? created.state : null;
    }, 60_000),
    eraseDuringToolCall: async () => {
      const { stack } = ops;
      const user_id = `u-erased-${randomUUID().slice(0, 8)}`;
      const conversation_id = randomUUID();
      const reply = stack.request<{ run_id: string; response_text: string }>('agents.task-assistant.process', { user_id, conversation_id, message: 'show my tasks' }, 120_000);
      const runId = await ops.taskRunInToolCall(conversation_id);
      const erased = await runCli(stack.url, ['erase', '--user', user_id], stack.cliEnv('admin'));
      expect(erased).toMatchObject({ code: 0, stderr: '' });
      return { user_id, runId, answered: await reply };
    },
  };
  return ops;
}
