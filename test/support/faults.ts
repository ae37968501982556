/**
 * Helpers for fault tests: a caller that asks again with the same request_id until it gets an answer, the
 * log's view of one scenario's runs (every run, by kind, folded), and the fault suite (npm run chaos) as a child process.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { foldEvents, RecordedEvent, StoredEvent } from '@runledger/event-log';
import { deterministicUuid } from '@runledger/kernel';
import { evolveRun, initialRunState, RunState } from '@runledger/runs';
import { retryingTransient } from '@runledger/testing';
import type { TestStack } from './stack';

export interface TaskReply {
  run_id: string;
  response_text: string;
}

export const addRequest = (tag: string, i: number) => ({
  user_id: `${tag}-user-${i}`, conversation_id: deterministicUuid(tag, 'conv', i), request_id: `${tag}-req-${i}`, message: `add task ${tag} item ${i}`,
});

/** Asks until the answer is final (not "taking longer"): the same request_id always lands on the same run. */
export async function askUntilAnswered(stack: TestStack, body: Record<string, unknown>, attempts = 60): Promise<TaskReply> {
  let last: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      // Longer than the service's own reply timeout: the service answers (maybe "taking longer") before we give up.
      const r = await stack.request<TaskReply>('agents.task-assistant.process', body, 60_000);
      last = r;
      if (r.ok && !/taking longer/.test(r.body.response_text ?? '')) return r.body;
    } catch (err) {
      last = (err as Error).message; // no responders while a service or nats-server is down, or a lost reply
    }
    await new Promise((res) => setTimeout(res, 500)); // pacing of a polite client, not a condition
  }
  throw new Error(`request ${JSON.stringify(body)} never got a final answer; last: ${JSON.stringify(last)}`);
}

export interface ScenarioRun {
  run_id: string;
  kind: string;
  events: StoredEvent[];
  state: RunState;
}

/**
 * Every run whose root is one of `roots` (agent runs and all their child runs), folded from the log. Read as a
 * client reads right after a nats-server restart: DEPENDENCY.DOWN while the streams recover is retried.
 */
export async function runsUnder(stack: TestStack, roots: Set<string>): Promise<ScenarioRun[]> {
  const { state: all } = await retryingTransient(() => stack.log.replay<StoredEvent[]>((acc, e) => (acc.push(e), acc), [], { filter: 'rl.log.run.>' }));
  const byRun = new Map<string, StoredEvent[]>();
  for (const e of all) byRun.set(e.metadata.stream_id, [...(byRun.get(e.metadata.stream_id) ?? []), e]);
  return [...byRun.entries()]
    .filter(([, ev]) => ev[0].type === 'RunCreated' && roots.has((ev[0].data as { root_run_id: string }).root_run_id))
    .map(([run_id, events]) => ({ run_id, kind: (events[0].data as { run_kind: string }).run_kind, events, state: foldEvents(evolveRun, initialRunState(), events as unknown as RecordedEvent[]) }));
}

/** Runs `npm run chaos` with `args`; its exit code, printed counts, and (on failure) the tail of its progress lines. */
export async function runChaos(args: string[]): Promise<{ code: number | null; counts: Record<string, unknown>; stderr: string }> {
  const script = path.join(__dirname, '..', '..', 'scripts', 'chaos.js');
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const json = stdout.slice(stdout.indexOf('{'), stdout.lastIndexOf('}') + 1);
  const counts = json ? (JSON.parse(json) as Record<string, unknown>) : {};
  // In the suite's output: where the time went, so a slow run on a busy machine says which part was slow.
  process.stderr.write(`[chaos ${args.join(' ')}] ${JSON.stringify({ duration_s: counts.duration_s, phases_s: counts.phases_s, load_average: counts.load_average })}\n`);
  return { code, counts, stderr: code === 0 ? '' : stderr.slice(-3000) };
}

/** Every count of the fault suite that must be zero, and the chain verified. */
export const CHAOS_CLEAN = { unanswered: 0, wrong_answers: 0, non_terminal: 0, lies: 0, duplicates: 0, lost: 0, coverage_violations: 0, crashed_on_their_own: 0, chain_ok: true };
