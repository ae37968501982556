/**
 * Issue 11: an operator finds, inspects, follows and cancels runs with `runledger`, run as a subprocess against the
 * running stack (dead letters, erasure mid-run and telemetry: operators-runs-deadletters.e2e.spec.ts; the stack's
 * set-up is shared: test/support/operators-stack.ts).
 */
import { randomUUID } from 'node:crypto';
import type { RunsListResult, RunSummary } from '@runledger/contracts';
import { traceIdOf } from '@runledger/runs';
import { CliProcess, runCli } from './support/cli';
import { policyVersionsIn, SHIPPED_POLICY_DIR, START, uploadCase } from './support/governed-runs';
import { useOperatorsStack } from './support/operators-stack';
import { seedRuns } from './support/seed-runs';

jest.setTimeout(300_000);

const versions = policyVersionsIn(SHIPPED_POLICY_DIR);

describe('Issue 11 operators: runledger runs against a running stack', () => {
  const ops = useOperatorsStack();
  const { cli, listJson, taskRunInToolCall, holding, cancelInsideTool } = ops;
  let stack: typeof ops.stack;
  let otlp: typeof ops.otlp;
  beforeAll(() => {
    ({ stack, otlp } = ops);
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

  it('Operator output: caller-controlled control characters are shown escaped, never sent to the terminal (runs list, runs show)', async () => {
    const tag = `ansi-${randomUUID().slice(0, 8)}`;
    // A user id holds no control character (refused: an operator could not type it back); bidi overrides it may hold.
    const user_id = `${tag}\u202eEVIL\u2066`;
    const reply = await stack.request<{ run_id: string }>('agents.task-assistant.process', { user_id, conversation_id: randomUUID(), message: `add task ${tag} \u001b]0;pwned\u0007 probe` }, 120_000);
    expect(reply.ok).toBe(true);
    // eslint-disable-next-line no-control-regex -- control characters are what the test looks for
    const acted = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
    const listed = await stack.waitFor(async () => {
      const r = await cli('runs', 'list', '--text', tag);
      return r.stdout.includes(reply.body.run_id) ? r : null;
    }, 60_000);
    expect(listed.stdout).not.toMatch(acted);
    expect(listed.stdout).toContain(`${tag}\\u202eEVIL`);
    const shown = await cli('runs', 'show', reply.body.run_id);
    expect(shown).toMatchObject({ code: 0, stderr: '' });
    expect(shown.stdout).not.toMatch(acted);
    expect(shown.stdout.split('\n')[1]).toBe(`  message  add task ${tag} \\u001b]0;pwned\\u0007 probe`);
    const asJson = await cli('runs', 'show', reply.body.run_id, '--json');
    expect(asJson.stdout).not.toMatch(acted);
    expect(JSON.parse(asJson.stdout).run.run.user_id).toBe(user_id);
  });

  it('Issue 11 runs show: an unknown run is RUN.NOT_FOUND (exit 1), a malformed id a usage error (exit 2)', async () => {
    const unknown = await cli('runs', 'show', randomUUID());
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('RUN.NOT_FOUND');
    const malformed = await cli('runs', 'show', 'not-a-uuid');
    expect(malformed).toMatchObject({ code: 2, stdout: '' });
    // Said before connecting (README "Operator commands": every wrong value), the error first, then the usage.
    expect(malformed.stderr).toMatch(/^RUN_ID must be a UUID \(8-4-4-4-12 hex digits\), got "not-a-uuid"\nusage: runledger runs list/);
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

  it('Issue 22 runs tail --all: a choke point\'s child run (not copied on the live feed) is followed too, after its parent\'s opening, each event once', async () => {
    const tail = new CliProcess(stack.url, ['runs', 'tail', '--all', '--events'], stack.cliEnv('operator'));
    try {
      await tail.until(() => tail.stderr.includes('following runs'), 'the tail to start');
      await stack.request('agents.task-assistant.process', { user_id: 'u-tail-child', conversation_id: randomUUID(), message: `add task tail child ${randomUUID().slice(0, 8)}` }, 120_000);
      const runOf = (line: string | undefined) => line?.split('  ')[1];
      const taskRun = () => runOf(tail.stdout.split('\n').find((l) => l.includes('TASK_ASSISTANT  ToolCallRequested')));
      const childRun = () => runOf(tail.stdout.split('\n').find((l) => l.includes('  ToolCallAudited')));
      await tail.until(() => Boolean(taskRun() && childRun() && tail.stdout.includes(`${taskRun()}  TASK_ASSISTANT  RunCompleted`) && tail.stdout.includes(`${childRun()}  TASK_ASSISTANT  RunCompleted`)), 'the task run and its tool call\'s child run to end');
      const lines = tail.stdout.split('\n');
      expect(childRun()).not.toBe(taskRun());
      // In log order: the task run's tool call request, then its child run's events, then the task run's end.
      const at = (run: string | undefined, type: string) => lines.findIndex((l) => l.includes(`${run}  TASK_ASSISTANT  ${type}`));
      expect(at(taskRun(), 'ToolCallRequested')).toBeLessThan(at(childRun(), 'RunCreated'));
      expect(at(childRun(), 'RunCompleted')).toBeLessThan(at(taskRun(), 'RunCompleted'));
      expect(lines.filter((l) => l.includes(`${childRun()}  TASK_ASSISTANT  EffectClaimed`))).toHaveLength(1);
    } finally {
      expect(await tail.stop()).toBe(0);
    }
  });

  it('Issue 11 runs cancel: the cancel is recorded and the worker ends the run cancelled at its next step', async () => {
    const caseId = `case-${randomUUID().slice(0, 8)}`;
    const inputs = await uploadCase(stack, caseId, versions);
    // The interview step's tool is held until the cancel is recorded: the run is inside that step when it is asked.
    const root = await holding(async () => {
      const reply = stack.request<{ run_id: string; outcome: string }>(START, {
        agent_name: 'ORCHESTRATOR', case_id: caseId, input_artifacts: [inputs.form, inputs.recording, inputs.document],
        parameters: { client_session_id: 's', coa_version: 'coa-2026.1', export: true },
      }, 120_000);
      const run = await stack.waitFor(async () => (await listJson('--case', caseId, '--agent', 'ORCHESTRATOR')).runs[0], 60_000);
      await stack.waitFor(async () => (await stack.runEvents(run.run_id)).some((e) => e.type === 'ChildRunStarted' && (e.data as { agent_name: string }).agent_name === 'INTERVIEW_AGENT'), 60_000);
      const cancelled = await cancelInsideTool(run.run_id);
      expect(cancelled).toMatchObject({ code: 0, stdout: `run ${run.run_id} cancelled\n` });
      await reply.catch(() => undefined);
      return run;
    });

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
    await holding(async () => {
      const reply = stack.request<{ run_id: string; response_text: string }>('agents.task-assistant.process', { user_id: 'u-cancelled', conversation_id, message: `add task ${conversation_id.slice(0, 8)}` }, 120_000);
      // The run is inside its (held) add_task call: cancel it there.
      const runId = await taskRunInToolCall(conversation_id);
      const cancelled = await cancelInsideTool(runId);
      expect(cancelled).toMatchObject({ code: 0, stdout: `run ${runId} cancelled\n` });
      const answered = await reply;
      expect(answered.ok).toBe(true);
      expect(answered.body).toMatchObject({ run_id: runId, decision_type: 'RESPOND_ONLY', response_text: expect.stringContaining('cancelled') });
      expect(answered.body.response_text).not.toContain("didn't understand");
    });
  });

  it('Issue 11 metrics: runs started/ended per agent, request and step latency are exported over OTLP', async () => {
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
  });
});
