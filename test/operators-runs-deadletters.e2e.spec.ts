/**
 * Issue 11 and 25: an operator lists, shows and retries dead letters with `runledger`, a run whose user is erased
 * mid-run ends honestly, and spans and metrics follow the OpenTelemetry conventions (runs list/show/tail/cancel:
 * operators-runs.e2e.spec.ts; the stack's set-up is shared: test/support/operators-stack.ts).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DeadLettersListResult } from '@runledger/contracts';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { aggregateRef, LOG_STREAM, writerHeaders } from '@runledger/event-log';
import type { ReceivedSpan } from '@runledger/testing';
import { START } from './support/governed-runs';
import { RUN_PUBLISH, useOperatorsStack } from './support/operators-stack';

jest.setTimeout(300_000);

describe('Issue 11 operators: runledger deadletters, honest outcomes and telemetry against a running stack', () => {
  const ops = useOperatorsStack();
  const { cli, listJson, eraseDuringToolCall } = ops;
  let stack: typeof ops.stack;
  let otlp: typeof ops.otlp;
  beforeAll(() => {
    ({ stack, otlp } = ops);
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
    // A writer's message (it carries the header every append sets): one the server stored itself is never re-published.
    const ack = await jetstream(stack.nc).publish('rl.log.inbox.decision', poison, { headers: writerHeaders('AgentRequested') });
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

  it('Issue 23 foreign messages: a JetStream answer the server stored on the decision inbox (a request named it as its reply subject) is dead-lettered LOG.FOREIGN_MESSAGE, and its retry is refused: it is never re-published as a writer\'s command', async () => {
    const jsm = await jetstreamManager(stack.nc);
    const last = async () => (await jsm.streams.getMessage(LOG_STREAM, { last_by_subj: 'rl.log.inbox.decision' }).catch(() => null))?.seq ?? 0;
    const before = await last();
    // What any identity with JetStream API rights can make the server do; only the server publishes the answer.
    stack.nc.publish(`$JS.API.STREAM.INFO.${LOG_STREAM}`, new Uint8Array(), { reply: 'rl.log.inbox.decision' });
    const seq = await stack.waitFor(async () => ((await last()) > before ? last() : null), 30_000);
    const letters = async () => JSON.parse((await cli('deadletters', 'list', '--json')).stdout) as DeadLettersListResult;
    const letter = await stack.waitFor(async () => (await letters()).dead_letters.find((l) => l.stream_seq === seq), 60_000);
    // Its bytes are not shown: a copy the server stored could hold anything an insider may read (a data key's slot).
    expect(letter).toMatchObject({ durable: 'decision-inbox', reason: "no writer's message", error_code: 'LOG.FOREIGN_MESSAGE', retryable: false, payload: null });
    const retried = await cli('deadletters', 'retry', letter.id);
    expect(retried.code).toBe(1);
    expect(retried.stderr).toContain('DEADLETTER.NOT_RETRYABLE');
    expect((await letters()).dead_letters.find((l) => l.id === letter.id)?.retries).toEqual([]);
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

  it('Issue 11 metrics: dead letters are exported over OTLP, per durable', async () => {
    const latest = (name: string, where: (a: Record<string, unknown>) => boolean) => otlp.metrics().filter((m) => m.name === name && where(m.attributes)).pop();
    // The decision inbox's dead letters of the tests above (at least the poison command and its retried copy); metrics
    // are exported every interval, so the last may be in a later export.
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
