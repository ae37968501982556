/**
 * Issue 11: an operator finds, inspects, follows and cancels runs and retries dead letters with `runledger`,
 * run as a subprocess against the running stack.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DeadLettersListResult, RunsListResult, RunSummary } from '@runledger/contracts';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { aggregateRef, LOG_STREAM } from '@runledger/event-log';
import { traceIdOf } from '@runledger/runs';
import { OtlpReceiver, ReceivedSpan, startOtlpReceiver } from '@runledger/testing';
import { CliProcess, runCli } from './support/cli';
import { policyVersionsIn, SHIPPED_POLICY_DIR, START, uploadCase } from './support/governed-runs';
import { seedRuns } from './support/seed-runs';
import { TestStack } from './support/stack';

/** A run append's span: its subject names the run's owner (issue 23), `publish rl.log.run.<owner>.{id}`. */
const RUN_PUBLISH = /^publish rl\.log\.run\.[a-z-]+\.\{id\}$/;
jest.setTimeout(300_000);

const versions = policyVersionsIn(SHIPPED_POLICY_DIR);

describe('Issue 11 operators: runledger runs / deadletters against a running stack', () => {
  let stack: TestStack;
  let otlp: OtlpReceiver;
  const cli = (...args: string[]) => runCli(stack.url, args, stack.cliEnv('operator'));
  const listJson = async (...args: string[]): Promise<RunsListResult> => {
    const r = await cli('runs', 'list', '--json', ...args);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    return JSON.parse(r.stdout) as RunsListResult;
  };

  /** The task run of a conversation, once it is inside its first (slowed) tool call. */
  const taskRunInToolCall = (conversationId: string): Promise<string> => stack.waitFor(async () => {
    const created = await stack.log.replay<string | null>((found, e) => found ?? (e.type === 'RunCreated' && (e.data as { conversation_id?: string }).conversation_id === conversationId ? (e.data as { run_id: string }).run_id : null), null, { filter: 'rl.log.run.>' });
    return created.state && (await stack.runEvents(created.state)).some((e) => e.type === 'ToolCallRequested') ? created.state : null;
  }, 60_000);

  /** A task-assistant request whose user is erased while the run is inside its (slowed) list_tasks call. */
  const eraseDuringToolCall = async () => {
    const user_id = `u-erased-${randomUUID().slice(0, 8)}`;
    const conversation_id = randomUUID();
    const reply = stack.request<{ run_id: string; response_text: string }>('agents.task-assistant.process', { user_id, conversation_id, message: 'show my tasks' }, 120_000);
    const runId = await taskRunInToolCall(conversation_id);
    const erased = await runCli(stack.url, ['erase', '--user', user_id], stack.cliEnv('admin'));
    expect(erased).toMatchObject({ code: 0, stderr: '' });
    return { user_id, runId, answered: await reply };
  };

  beforeAll(async () => {
    // The interview agent's first tool and the task assistant's list_tasks are slowed (well within the tool timeout)
    // so a run stays open long enough to be cancelled even on a busy machine.
    // Spans are exported to a real OTLP receiver, so runs carry trace ids to show.
    otlp = await startOtlpReceiver();
    stack = await TestStack.start({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '200', OTEL_BSP_MAX_QUEUE_SIZE: '200000', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2048', OTEL_METRIC_EXPORT_INTERVAL: '1000', TOOL_TIMEOUT_MS: '60000' },
      serviceEnv: { 'tool-gateway': { RL_TOOL_FAULTS: 'interview.prompt.next=delay:15000,list_tasks=delay:15000' } },
    });
  });
  afterAll(async () => {
    await stack?.stop();
    await otlp?.stop();
  });

  it('Issue 11 runs list: the one failed run among 600 is found with --failed, and --cursor pages through all of them once', async () => {
    const agent = 'SEED_AGENT';
    const ids = await seedRuns(stack, { agent, count: 600, failing: [417], case_id: 'case-seed' });
    await stack.waitFor(async () => (await listJson('--agent', agent, '--limit', '1')).matched === 600 || null, 120_000);

    const failed = await cli('runs', 'list', '--agent', agent, '--failed');
    expect(failed.code).toBe(0);
    expect(failed.stdout).toContain(ids[417]);
    expect(failed.stdout).toContain('TOOL.FAILED');
    expect(failed.stdout).toMatch(/^RUN\s+AGENT\s+KIND\s+STATUS/);
    expect(failed.stdout).toContain('1 of 1 matching run(s)\n');

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: RunsListResult = await listJson('--agent', agent, '--limit', '250', ...(cursor ? ['--cursor', cursor] : []));
      expect(page.runs.length).toBeLessThanOrEqual(250);
      seen.push(...page.runs.map((r) => r.run_id));
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(600);
    expect(new Set(seen)).toEqual(new Set(ids));

    // Queries that arrive together share one read of the index (the resolver's sweep asks three at once): each
    // still gets the answer it would get alone.
    const together = await Promise.all([listJson('--agent', agent, '--status', 'completed', '--limit', '1'), listJson('--agent', agent, '--failed'), listJson('--agent', agent, '--limit', '1')]);
    expect(together.map((r) => r.matched)).toEqual([599, 1, 600]);

    const byCase = await listJson('--case', 'case-seed', '--status', 'completed', '--limit', '500');
    expect(byCase.matched).toBe(599);
    const future = await cli('runs', 'list', '--agent', agent, '--since', new Date(Date.now() + 3_600_000).toISOString());
    expect(future.stdout).toBe('no runs match\n');
  });

  it('Issue 11 runs list: bad filters are refused with a usage message and REQUEST.INVALID, never a stack trace', async () => {
    const badStatus = await cli('runs', 'list', '--status', 'exploded');
    expect(badStatus.code).toBe(2);
    expect(badStatus.stderr).toContain('--status must be one of created, authorized, running, completed, failed, denied, cancelled');
    expect(badStatus.stderr).not.toMatch(/\n\s+at /);
    const badCursor = await cli('runs', 'list', '--cursor', 'not-a-cursor');
    expect(badCursor.code).toBe(2);
    expect(badCursor.stderr).toContain('The cursor is not one rl.runs.list returned.');
    const unknownFlag = await cli('runs', 'list', '--colour');
    expect(unknownFlag).toMatchObject({ code: 2 });
    expect(unknownFlag.stderr).toContain('unknown option --colour');
  });

  it('Issue 11 runs show: a governed run is shown as a tree with its child runs, events, durations, outcome and trace id', async () => {
    const caseId = `case-${randomUUID().slice(0, 8)}`;
    const inputs = await uploadCase(stack, caseId, versions);
    const started = await stack.request<{ run_id: string; outcome: string }>(START, { agent_name: 'INTAKE_AGENT', case_id: caseId, input_artifacts: [inputs.form], parameters: {} }, 90_000);
    expect(started.body.outcome).toBe('success');
    const runId = started.body.run_id;
    const events = await stack.runEvents(runId);
    const trace = traceIdOf(events[0].metadata.traceparent);
    expect(trace).toMatch(/^[0-9a-f]{32}$/);
    // The index is eventually consistent: wait until it has the whole tree.
    await stack.waitFor(async () => (await listJson('--all', '--case', caseId)).runs.find((r) => r.run_id === runId && r.status === 'completed'), 60_000);

    const shown = await runCli(stack.url, ['runs', 'show', runId], { ...stack.cliEnv('operator'), JAEGER_UI_URL: 'http://jaeger.example:16686' });
    expect(shown.code).toBe(0);
    const lines = shown.stdout.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^run ${runId}  INTAKE_AGENT  agent  completed  \\d`));
    expect(shown.stdout).toContain(`trace ${trace}  http://jaeger.example:16686/trace/${trace}`);
    expect(shown.stdout).toMatch(/\+\d+ ms\s+AuthzDecided allow/);
    expect(shown.stdout).toMatch(/RunCompleted/);
    const childLines = lines.filter((l) => /^ {2}│ run /.test(l));
    expect(childLines.length).toBeGreaterThan(0);

    const tree = JSON.parse((await cli('runs', 'show', runId, '--json')).stdout) as { run: { run_id: string }; summary: RunSummary; children: { run: { run_id: string; run?: { parent_run_id?: string } } }[] };
    expect(tree.run.run_id).toBe(runId);
    expect(tree.summary).toMatchObject({ run_id: runId, trace_id: trace, status: 'completed', agent_name: 'INTAKE_AGENT' });
    expect(tree.children.length).toBe(childLines.length);
    for (const child of tree.children) expect(child.run.run?.parent_run_id).toBe(runId);
  });

  it('Issue 25 runs show: a task run shows its message, intent and reply without --json', async () => {
    const task = `water the ficus ${randomUUID().slice(0, 8)}`;
    const reply = await stack.request<{ run_id: string; response_text: string }>('agents.task-assistant.process', { user_id: 'u-show', conversation_id: randomUUID(), message: `add task ${task}` }, 120_000);
    expect(reply.ok).toBe(true);
    const shown = await cli('runs', 'show', reply.body.run_id);
    expect(shown).toMatchObject({ code: 0, stderr: '' });
    const lines = shown.stdout.split('\n');
    expect(lines[1]).toBe(`  message  add task ${task}`);
    expect(lines[2]).toMatch(/^ {2}intent {3}CREATE_TASK( \(confidence [\d.]+\))?$/);
    expect(lines[3]).toBe(`  reply    ${reply.body.response_text}`);
    expect(reply.body.response_text).toContain(task);
  });

  it('Issue 11 runs show: an unknown run is RUN.NOT_FOUND (exit 1), a malformed id a usage error (exit 2)', async () => {
    const unknown = await cli('runs', 'show', randomUUID());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('RUN.NOT_FOUND');
    const malformed = await cli('runs', 'show', 'not-a-uuid');
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('REQUEST.INVALID');
  });

  it('Issue 11 runs tail: new runs are followed live, filtered by agent', async () => {
    const tail = new CliProcess(stack.url, ['runs', 'tail', '--agent', 'TAIL_AGENT'], stack.cliEnv('operator'));
    try {
      await tail.until(() => tail.stderr.includes('following runs'), 'the tail to start');
      const [other] = await seedRuns(stack, { agent: 'OTHER_AGENT', count: 1 });
      // A case's runs: the failure text is sealed on the log; the tail prints it opened, as runs show does (probe finding).
      const ids = await seedRuns(stack, { agent: 'TAIL_AGENT', count: 2, failing: [1], case_id: 'case-tail' });
      await tail.until(() => tail.stdout.includes(`${ids[0]}  TAIL_AGENT  RunCompleted`) && tail.stdout.includes(`${ids[1]}  TAIL_AGENT  RunFailed TOOL.FAILED: seeded failure 1\n`), 'both runs to end');
      expect(tail.stdout).toContain(`${ids[0]}  TAIL_AGENT  RunCreated`);
      expect(tail.stdout).not.toContain(other);
      expect(tail.stdout).not.toContain('AuthzDecided'); // lifecycle only, unless --events
    } finally {
      expect(await tail.stop()).toBe(0);
    }
  });

  it('Issue 25 runs tail: follows from the moment it is asked — a run stored while the tail is still starting is shown, each event once', async () => {
    const tail = new CliProcess(stack.url, ['runs', 'tail', '--agent', 'EARLY_AGENT'], stack.cliEnv('operator'));
    try {
      // Asked, but not connected yet (starting a process and connecting takes far longer than one append).
      const [during] = await seedRuns(stack, { agent: 'EARLY_AGENT', count: 1 });
      expect(tail.stderr).not.toContain('following runs');
      await tail.until(() => tail.stdout.includes(`${during}  EARLY_AGENT  RunCompleted`), 'the run stored while the tail started');
      expect(tail.stdout).toContain(`${during}  EARLY_AGENT  RunCreated`);
      const [after] = await seedRuns(stack, { agent: 'EARLY_AGENT', count: 1 });
      await tail.until(() => tail.stdout.includes(`${after}  EARLY_AGENT  RunCompleted`), 'a run stored once it follows');
      // Each event once: the catch-up and the live feed do not overlap.
      expect(tail.stdout.split('\n').filter((l) => l.includes(`${during}  EARLY_AGENT  RunCreated`))).toHaveLength(1);
    } finally {
      expect(await tail.stop()).toBe(0);
    }
  });

  it('Issue 11 runs cancel: the cancel is recorded and the worker ends the run cancelled at its next step', async () => {
    const caseId = `case-${randomUUID().slice(0, 8)}`;
    const inputs = await uploadCase(stack, caseId, versions);
    const reply = stack.request<{ run_id: string; outcome: string }>(START, {
      agent_name: 'ORCHESTRATOR', case_id: caseId, input_artifacts: [inputs.form, inputs.recording, inputs.document],
      parameters: { client_session_id: 's', coa_version: 'coa-2026.1', export: true },
    }, 120_000);
    // Wait until the workflow is inside its interview step (the slowed tool), then cancel it.
    const root = await stack.waitFor(async () => (await listJson('--case', caseId, '--agent', 'ORCHESTRATOR')).runs[0], 60_000);
    await stack.waitFor(async () => (await stack.runEvents(root.run_id)).some((e) => e.type === 'ChildRunStarted' && (e.data as { agent_name: string }).agent_name === 'INTERVIEW_AGENT'), 60_000);
    const cancelled = await cli('runs', 'cancel', root.run_id, '--reason', 'operator drill', '--wait', '--timeout', '120');
    expect(cancelled).toMatchObject({ code: 0, stdout: `run ${root.run_id} cancelled\n` });
    await reply.catch(() => undefined);

    const types = (await stack.runEvents(root.run_id)).map((e) => e.type);
    expect(types.filter((t) => t === 'RunCancelRequested')).toHaveLength(1);
    expect(types[types.length - 1]).toBe('RunCancelled');
    expect(types.indexOf('RunCancelRequested')).toBeLessThan(types.indexOf('RunCancelled'));
    const children = (await stack.runEvents(root.run_id)).filter((e) => e.type === 'ChildRunStarted').map((e) => (e.data as { agent_name: string }).agent_name);
    expect(children).not.toContain('EXPORT_AGENT'); // stopped before the remaining steps

    const again = await cli('runs', 'cancel', root.run_id);
    expect(again).toMatchObject({ code: 0, stdout: `run ${root.run_id} already ended (cancelled); nothing to cancel\n` });
    const summary = await stack.waitFor(async () => (await listJson('--case', caseId, '--agent', 'ORCHESTRATOR')).runs.find((r) => r.status === 'cancelled'), 30_000);
    expect(summary).toMatchObject({ cancel_requested: true, failed: false, error_code: 'RUN.CANCELLED', error_message: 'operator drill' });
  });

  it('Issue 25 honest outcomes: a task-assistant run cancelled by an operator tells its caller it was cancelled, not "I didn\'t understand that"', async () => {
    const conversation_id = randomUUID();
    const reply = stack.request<{ run_id: string; response_text: string }>('agents.task-assistant.process', { user_id: 'u-cancelled', conversation_id, message: 'show my tasks' }, 120_000);
    // The run is inside its (slowed) list_tasks call: cancel it there.
    const runId = await taskRunInToolCall(conversation_id);
    const cancelled = await cli('runs', 'cancel', runId, '--reason', 'operator drill', '--wait', '--timeout', '120');
    expect(cancelled).toMatchObject({ code: 0, stdout: `run ${runId} cancelled\n` });
    const answered = await reply;
    expect(answered.ok).toBe(true);
    expect(answered.body).toMatchObject({ run_id: runId, decision_type: 'RESPOND_ONLY', response_text: expect.stringContaining('cancelled') });
    expect(answered.body.response_text).not.toContain("didn't understand");
  });

  it('Issue 25 honest outcomes: erasing a user while their request runs ends the run and its tool child with DATA.ERASED and answers the caller, nothing left running or dead-lettered', async () => {
    const { user_id, runId, answered } = await eraseDuringToolCall();
    expect(answered).toMatchObject({ ok: true, body: { run_id: runId, decision_type: 'RESPOND_ONLY', response_text: 'Your data was erased, so this request was not completed.' } });
    const events = await stack.runEvents(runId);
    expect(events.at(-1)).toMatchObject({ type: 'RunFailed', data: { error: { error_code: 'DATA.ERASED', retryable: false } } });
    const childId = (events.find((e) => e.type === 'ToolCallRequested')!.data as { child_run_id: string }).child_run_id;
    expect((await stack.runEvents(childId)).at(-1)).toMatchObject({ type: 'RunFailed', data: { error: { error_code: 'DATA.ERASED', retryable: false } } });
    // The run reads as ended in the runs index, and no command of it became a dead letter.
    const summary = await stack.waitFor(async () => (await listJson('--user', user_id)).runs.find((r) => r.run_id === runId && r.status === 'failed'), 30_000);
    expect(summary).toMatchObject({ error_code: 'DATA.ERASED' });
    const letters = JSON.parse((await cli('deadletters', 'list', '--json')).stdout) as DeadLettersListResult;
    expect(letters.dead_letters.filter((l) => l.error_code === 'DATA.ERASED')).toEqual([]);
  });

  it('Issue 25 honest outcomes: a well-formed inbox command that nothing carries is dead-lettered as REQUEST.INVALID, never acknowledged and dropped', async () => {
    // Appended as the harness (`test`): a command no contract defines has no schema, so the log check at stack stop
    // must not take it for one of ours.
    const appended = await stack.storedLog.append(aggregateRef('inbox', 'decision'), [{ type: 'NoSuchCommand', data: { nonsense: randomUUID() } }], { commandId: `nonsense-${randomUUID()}` });
    const seq = appended.events[0]!.seq;
    const letters = async () => JSON.parse((await cli('deadletters', 'list', '--json')).stdout) as DeadLettersListResult;
    const letter = await stack.waitFor(async () => (await letters()).dead_letters.find((l) => l.stream_seq === seq), 60_000);
    expect(letter).toMatchObject({ durable: 'decision-inbox', subject: 'rl.log.inbox.decision', error_code: 'REQUEST.INVALID', deliveries: 1 });
  });

  it('Issue 25 honest outcomes: a dead letter names its run, shows its payload with sealed fields still sealed, says a retry cannot succeed, and its retry is refused (DEADLETTER.NOT_RETRYABLE) instead of making a second dead letter', async () => {
    const runId = randomUUID();
    const secret = `my bank pin is ${randomUUID().slice(0, 8)}`;
    // A well-formed request for an agent nothing carries: refused for good (REQUEST.INVALID), its message sealed in the log.
    const appended = await stack.log.append(aggregateRef('inbox', 'decision'), [{
      type: 'AgentRequested', data: { run_id: runId, agent_name: 'NO_SUCH_AGENT', request: { user_id: 'u-dead-letter', conversation_id: randomUUID(), message: secret }, caller_context: false },
      metadata: { run_id: runId, root_run_id: runId, user_id: 'u-dead-letter' },
    }], { commandId: `dead-letter-run-${runId}` });
    const seq = appended.events[0]!.seq;
    const letters = async () => JSON.parse((await cli('deadletters', 'list', '--json')).stdout) as DeadLettersListResult;
    const letter = await stack.waitFor(async () => (await letters()).dead_letters.find((l) => l.stream_seq === seq), 60_000);
    expect(letter).toMatchObject({ run_id: runId, error_code: 'REQUEST.INVALID', retryable: false, not_retryable_because: expect.stringContaining('REQUEST.INVALID') });
    expect(letter.payload).toEqual([expect.objectContaining({ type: 'AgentRequested', data: expect.objectContaining({ run_id: runId, agent_name: 'NO_SUCH_AGENT' }) })]);
    const payload = letter.payload as Array<{ data: { request: { message: unknown } } }>;
    expect(payload[0].data.request.message).toMatchObject({ sealed: 'aes-256-gcm/v1' });
    expect(JSON.stringify(letter)).not.toContain(secret);

    const listed = await cli('deadletters', 'list');
    expect(listed.stdout).toMatch(new RegExp(`^${letter.id}\\s.*${runId}.*REQUEST\\.INVALID\\s+1\\s+no\\s+0\\s*$`, 'm'));
    const shown = await cli('deadletters', 'show', letter.id);
    expect(shown).toMatchObject({ code: 0, stderr: '' });
    expect(shown.stdout).toContain(`  run         ${runId}\n`);
    expect(shown.stdout).toMatch(/ {2}retry {7}cannot succeed: it was refused for good \(REQUEST\.INVALID/);
    expect(shown.stdout).toContain('"sealed": "aes-256-gcm/v1"');
    expect(shown.stdout).not.toContain(secret);

    const retried = await cli('deadletters', 'retry', letter.id);
    expect(retried).toMatchObject({ code: 1, stdout: '' });
    expect(retried.stderr).toContain('DEADLETTER.NOT_RETRYABLE');
    expect(retried.stderr).toContain('refused for good');
    // Nothing was re-published: the letter has no retry, and no other dead letter names the run.
    const after = (await letters()).dead_letters.filter((l) => l.run_id === runId);
    expect(after).toEqual([expect.objectContaining({ id: letter.id, retries: [] })]);
  });

  it('Issue 11 deadletters: a poison command is listed with its reason, and retry re-publishes it (recorded)', async () => {
    // A command the decision inbox cannot even decode (the log cannot refuse it: it is dead-lettered).
    const poison = new TextEncoder().encode(`not an event ${randomUUID()}`);
    const ack = await jetstream(stack.nc).publish('rl.log.inbox.decision', poison);
    const letters = async () => JSON.parse((await cli('deadletters', 'list', '--json')).stdout) as DeadLettersListResult;
    const first = await stack.waitFor(async () => (await letters()).dead_letters.find((l) => l.stream_seq === ack.seq), 60_000);
    expect(first).toMatchObject({ id: `decision-inbox:${ack.seq}`, durable: 'decision-inbox', subject: 'rl.log.inbox.decision', retryable: true, retries: [] });

    const human = await cli('deadletters', 'list');
    expect(human.stdout).toMatch(new RegExp(`^decision-inbox:${ack.seq}\\s+\\S+ \\S+\\s+rl\\.log\\.inbox\\.decision\\s+`, 'm'));

    const retried = await cli('deadletters', 'retry', first.id);
    expect(retried.code).toBe(0);
    const newSeq = Number(/as log message (\d+) \(retry 1\)/.exec(retried.stdout)?.[1]);
    expect(newSeq).toBeGreaterThan(ack.seq);
    const copy = await (await jetstreamManager(stack.nc)).streams.getMessage(LOG_STREAM, { seq: newSeq });
    expect(copy?.subject).toBe('rl.log.inbox.decision');
    expect(Buffer.from(copy!.data).equals(Buffer.from(poison))).toBe(true);
    const after = await stack.waitFor(async () => {
      const all = (await letters()).dead_letters;
      // The copy is still poison: the consumer processed it and dead-lettered it again, under its own sequence.
      return all.find((l) => l.stream_seq === newSeq) ? all : null;
    }, 60_000);
    expect(after.find((l) => l.id === first.id)?.retries).toEqual([expect.objectContaining({ new_seq: newSeq })]);

    const missing = await cli('deadletters', 'retry', 'decision-inbox:999999');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('DEADLETTER.NOT_FOUND');
  });

  it('Issue 11 telemetry: spans follow the OpenTelemetry messaging conventions in full (operation name and type, destination template; an append is one message, its commit\'s event count an attribute of its own)', async () => {
    const spans = await stack.waitFor(async () => {
      const all = otlp.spans();
      return all.some((s) => s.name === 'process rl.runs.list') && all.some((s) => RUN_PUBLISH.test(s.name)) ? all : null;
    }, 30_000);
    const publishes = spans.filter((s) => RUN_PUBLISH.test(s.name));
    for (const p of publishes) {
      expect(p).toMatchObject({ kind: 4, attributes: expect.objectContaining({ 'messaging.system': 'nats', 'messaging.operation.name': 'publish', 'messaging.operation.type': 'send', 'messaging.destination.template': expect.stringMatching(/^rl\.log\.run\.[a-z-]+\.\{id\}$/) }) });
      expect(p.attributes['messaging.destination.name']).toMatch(/^rl\.log\.run\.[a-z-]+\.[0-9a-f-]{36}$/);
      // One message per append (a commit): no batch of messages, however many events it holds.
      expect(p.attributes['messaging.batch.message_count']).toBeUndefined();
      expect(Number(p.attributes['rl.commit.event_count'])).toBeGreaterThanOrEqual(1);
    }
    expect(publishes.some((p) => Number(p.attributes['rl.commit.event_count']) > 1)).toBe(true);
    expect(spans.find((s) => s.name === 'process rl.runs.list')).toMatchObject({
      kind: 5, attributes: expect.objectContaining({ 'messaging.operation.name': 'process', 'messaging.operation.type': 'process', 'messaging.destination.template': 'rl.runs.list', 'messaging.destination.name': 'rl.runs.list' }),
    });
    expect(spans.find((s) => s.name.startsWith('send '))?.attributes).toMatchObject({ 'messaging.operation.name': 'send', 'messaging.operation.type': 'send' });
  });

  it('Issue 11 metrics: runs started/ended per agent, request and step latency, and dead letters are exported over OTLP', async () => {
    const latest = (name: string, where: (a: Record<string, unknown>) => boolean) => otlp.metrics().filter((m) => m.name === name && where(m.attributes)).pop();
    await stack.waitFor(async () => (latest('runledger.runs.started', (a) => a['runledger.agent'] === 'SEED_AGENT')?.value ?? 0) >= 600 || null, 60_000);
    const failed = await stack.waitFor(async () => latest('runledger.runs.ended', (a) => a['runledger.agent'] === 'SEED_AGENT' && a['runledger.status'] === 'failed'), 30_000);
    expect(failed).toMatchObject({ serviceName: 'audit-ledger', kind: 'sum', value: 1 });
    expect(latest('runledger.runs.ended', (a) => a['runledger.agent'] === 'SEED_AGENT' && a['runledger.status'] === 'completed')?.value).toBe(599);
    expect(latest('runledger.runs.ended', (a) => a['runledger.agent'] === 'ORCHESTRATOR' && a['runledger.status'] === 'cancelled')?.value).toBeGreaterThanOrEqual(1);
    const requests = latest('runledger.request.duration', (a) => a['messaging.destination.template'] === 'rl.runs.list' && a['runledger.outcome'] === 'ok');
    expect(requests).toMatchObject({ kind: 'histogram', serviceName: 'audit-ledger' });
    expect(requests!.count).toBeGreaterThan(0);
    const step = latest('runledger.step.duration', (a) => a['runledger.agent'] === 'INTAKE_AGENT');
    expect(step?.count).toBeGreaterThan(0);
    // Metrics are exported every interval: the retried copy's dead letter (the test above) may be in a later export.
    const deadLetters = await stack.waitFor(async () => {
      const value = latest('runledger.deadletters', (a) => a['messaging.consumer.group.name'] === 'decision-inbox')?.value ?? 0;
      return value >= 2 ? value : null;
    }, 30_000);
    expect(deadLetters).toBeGreaterThanOrEqual(2);
  });

  it('Issue 25 telemetry: duration histograms have second-scale buckets with readable percentiles; a failed and a denied run\'s spans have error status and error.type; spans carry run id, agent, service.version and messaging.message.id', async () => {
    // A denied run (an agent nobody registered) and a failed one (its user erased mid-run).
    const denied = await stack.request<{ run_id: string; outcome: string }>(START, { agent_name: 'NOT_AN_AGENT', case_id: `case-telemetry-${randomUUID().slice(0, 8)}`, input_artifacts: [], parameters: {} }, 60_000);
    expect(denied.body).toMatchObject({ outcome: 'deny' });
    const { runId: failedId } = await eraseDuringToolCall();
    const errorSpans = (all: ReceivedSpan[], runId: string) => all.filter((s) => s.attributes['rl.run_id'] === runId && s.status?.code === 2);
    const spans = await stack.waitFor(async () => {
      const all = otlp.spans();
      return errorSpans(all, denied.body.run_id).length && errorSpans(all, failedId).length >= 2 ? all : null;
    }, 30_000);
    const version = (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
    // The denial is recorded in one commit (RunCreated … RunDenied): its publish span names run, agent and message.
    expect(errorSpans(spans, denied.body.run_id)).toContainEqual(expect.objectContaining({
      name: 'publish rl.log.run.decision.{id}', serviceName: 'decision', resource: expect.objectContaining({ 'service.version': version }), status: { code: 2, message: 'AGENT.UNKNOWN' },
      attributes: expect.objectContaining({ 'error.type': 'AGENT.UNKNOWN', 'rl.agent': 'NOT_AN_AGENT', 'messaging.message.id': expect.stringMatching(/^[0-9a-f-]{36}$/) }),
    }));
    // The failure's commit, and the span of the inbox command that carried the run to it (run id and agent from the command).
    const failed = errorSpans(spans, failedId);
    expect(failed).toContainEqual(expect.objectContaining({ name: expect.stringMatching(RUN_PUBLISH), attributes: expect.objectContaining({ 'error.type': 'DATA.ERASED' }) }));
    expect(failed).toContainEqual(expect.objectContaining({ name: 'process rl.log.inbox.{id}', attributes: expect.objectContaining({ 'error.type': 'DATA.ERASED', 'rl.agent': 'TASK_ASSISTANT', 'messaging.message.id': expect.any(String) }) }));
    expect(spans.filter((s) => s.serviceName).every((s) => s.resource['service.version'] === version)).toBe(true);

    // Seconds with second-scale bounds: a 15 s tool-bound request and millisecond reads fall in different buckets.
    const latestPoints = (name: string) => [...new Map(otlp.metrics().filter((m) => m.name === name).map((m) => [`${m.serviceName} ${JSON.stringify(m.attributes)}`, m])).values()];
    const requests = await stack.waitFor(async () => {
      const points = latestPoints('runledger.request.duration');
      return points.some((p) => p.attributes['messaging.destination.template'] === 'agents.task-assistant.process') ? points : null;
    }, 30_000);
    for (const name of ['runledger.request.duration', 'runledger.step.duration']) {
      for (const p of latestPoints(name)) expect({ name, unitBounds: p.explicitBounds }).toEqual({ name, unitBounds: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600] });
    }
    const perBucket = requests.reduce<number[]>((acc, p) => p.bucketCounts!.map((c, i) => c + (acc[i] ?? 0)), []);
    expect(perBucket.filter((c) => c > 0).length).toBeGreaterThanOrEqual(2);
    // The p50 and the p99 differ: observations are spread, not all in the first bucket.
    const total = perBucket.reduce((a, b) => a + b, 0);
    const quantileBucket = (q: number) => perBucket.findIndex((_, i) => perBucket.slice(0, i + 1).reduce((a, b) => a + b, 0) >= q * total);
    expect(quantileBucket(0.99)).toBeGreaterThan(quantileBucket(0.01));
    expect(perBucket[0]).toBeLessThan(total);
  });
});
