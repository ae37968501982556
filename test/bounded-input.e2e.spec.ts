/**
 * Issue 10 over the bus: bounded input at the task assistant, reused request ids, and a flood of rejected
 * requests turned away before it reaches the log.
 */
import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { LOG_STREAM } from '@runledger/event-log';
import { MAX_REQUEST_BYTES } from '@runledger/messaging';
import { runCli } from './support/cli';
import { TestStack } from './support/stack';
import { DecisionReply, PROCESS, send } from './support/task-assistant';

jest.setTimeout(120_000);

const INVALID = "I didn't understand that. Could you rephrase?";
/**
 * A small per-caller burst and no refill: how many rejections a caller gets recorded does not depend on time. Bodies
 * refused before their fields are read (the four raw cases below) share one caller: the burst holds them.
 */
const REJECTED_BURST = 4;

describe('Issue 10 bounded input, reused request ids and rejected floods (task assistant over the bus)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await TestStack.start({ serviceEnv: { decision: { RL_REJECTED_BURST: String(REJECTED_BURST), RL_REJECTED_PER_MINUTE: '0' } } });
  });
  afterAll(async () => stack?.stop());

  const request = (over: Record<string, unknown> = {}) => ({ user_id: `u-${randomUUID()}`, conversation_id: randomUUID(), message: 'show my tasks', ...over });
  const raw = (text: string) => stack.request<DecisionReply & { code?: string }>(PROCESS, null, 30_000, Buffer.from(text));

  it('Issue 10 bounded input: a user_id over 256 characters gets the invalid-input template at once, recorded as REQUEST.INVALID', async () => {
    const r = await send(stack, request({ user_id: 'u'.repeat(257) }));
    expect(r).toMatchObject({ ok: true, body: { decision_type: 'RESPOND_ONLY', response_text: INVALID } });
    const events = await stack.runEvents(r.body.run_id);
    expect(events.map((e) => e.type)).toEqual(['RunCreated', 'AuthzDecided', 'DecisionRecorded', 'RunDenied']);
    expect(events[3].data).toMatchObject({ error: { error_code: 'REQUEST.INVALID', retryable: false } });
    // Probe finding: that user id does not stretch every row of `runs list`: the cell is cut with an ellipsis.
    const list = await runCli(stack.url, ['runs', 'list', '--limit', '500'], stack.cliEnv('operator'));
    expect(list.code).toBe(0);
    const row = list.stdout.split('\n').find((l) => l.startsWith(r.body.run_id))!;
    expect(row).toContain(`${'u'.repeat(39)}…`);
    expect(row.length).toBeLessThan(200);
  });

  it('Probe findings: rl.runs.get takes include_events as a boolean only, and the empty audit requests take no fields (REQUEST.INVALID, never ignored)', async () => {
    expect(await stack.request('rl.runs.get', { run_id: randomUUID(), include_events: 'yes' })).toMatchObject({ ok: false, body: { code: 'REQUEST.INVALID' } });
    for (const subject of ['rl.audit.coverage', 'rl.audit.head']) {
      expect(await stack.request(subject, { junk: 1 })).toMatchObject({ ok: false, body: { code: 'REQUEST.INVALID', details: ['property junk should not exist'] } });
    }
    expect(await stack.request('rl.audit.head', {})).toMatchObject({ ok: true });
  });

  it('Probe finding: rl.audit.query answers by exactly one of conversation_id, run_id or root_run_id; two (or none) are REQUEST.INVALID saying so, never an answer by one of them', async () => {
    const id = randomUUID();
    expect(await stack.request('rl.audit.query', { run_id: id, conversation_id: id })).toMatchObject({
      ok: false, body: { code: 'REQUEST.INVALID', retryable: false, details: ['exactly one of conversation_id, run_id or root_run_id is required (conversation_id and run_id were given)'] },
    });
    expect(await stack.request('rl.audit.query', { limit: 5 })).toMatchObject({ ok: false, body: { code: 'REQUEST.INVALID', details: ['exactly one of conversation_id, run_id or root_run_id is required (none was given)'] } });
    expect(await stack.request('rl.audit.query', { run_id: id })).toMatchObject({ ok: true, body: { events: [] } });
    // A selector sent as null is not given: alone it is refused (never a read of no conversation), beside one it is ignored.
    expect(await stack.request('rl.audit.query', { conversation_id: null })).toMatchObject({ ok: false, body: { code: 'REQUEST.INVALID', details: ['exactly one of conversation_id, run_id or root_run_id is required (none was given)'] } });
    expect(await stack.request('rl.audit.query', { conversation_id: null, root_run_id: id })).toMatchObject({ ok: true, body: { events: [] } });
  });

  it('Probe finding: a key named like an Object.prototype member is an unknown field on every operator request, refused as foo is (REQUEST.INVALID, not ignored)', async () => {
    const runId = randomUUID();
    const asks: Array<[string, Record<string, unknown>]> = [
      ['rl.runs.get', { run_id: runId }], ['rl.runs.list', {}], ['rl.deadletters.list', {}], ['rl.audit.query', { run_id: runId }],
    ];
    for (const [subject, body] of asks) {
      expect({ subject, r: await stack.request(subject, { ...body, foo: 1 }) }).toMatchObject({ subject, r: { ok: false, body: { code: 'REQUEST.INVALID', retryable: false, details: ['property foo should not exist'] } } });
      expect({ subject, r: await stack.request(subject, { ...body, toString: 1, hasOwnProperty: 1 }) }).toMatchObject({
        subject, r: { ok: false, body: { code: 'REQUEST.INVALID', retryable: false, details: ['property toString should not exist', 'property hasOwnProperty should not exist'] } },
      });
    }
  });

  it.each([
    ['10k-deep JSON', `{"user_id":"u-deep","conversation_id":"${randomUUID()}","message":"hi","message_history":${'['.repeat(10_000)}${']'.repeat(10_000)}}`, /nested deeper than 32 levels/],
    ['a __proto__ key', `{"user_id":"u-proto","conversation_id":"${randomUUID()}","message":"hi","__proto__":{"admin":true}}`, /property __proto__ should not exist/],
    ['a constructor key in the history', `{"user_id":"u-ctor","conversation_id":"${randomUUID()}","message":"hi","message_history":[{"constructor":{"prototype":{}}}]}`, /property message_history\.0\.constructor should not exist/],
    // Probe finding: keys named like Object.prototype members passed the field whitelist (the DTO copy dropped them unseen) and ran a run.
    ['toString and hasOwnProperty keys', `{"user_id":"u-tostring","conversation_id":"${randomUUID()}","message":"show my tasks","toString":1,"hasOwnProperty":1}`, /property toString should not exist/],
    // Probe finding: every lone surrogate is U+FFFD once encoded, so "w\ud801" and "w\udfff" were one user (conversation, data key).
    ['a user_id with a lone UTF-16 surrogate', `{"user_id":"w\\ud801","conversation_id":"${randomUUID()}","message":"show my tasks"}`, /property user_id is not well-formed text/],
  ])('Issue 10 bounded input (contract 000 invalid input): %s gets the invalid-input template, never INTERNAL, and the refused run records the problem (README)', async (_case, body, problem) => {
    const r = await raw(body);
    expect(r).toMatchObject({ ok: true, body: { decision_type: 'RESPOND_ONLY', response_text: INVALID } });
    const denied = (await stack.runEvents(r.body.run_id)).find((e) => e.type === 'RunDenied');
    expect(denied?.data).toMatchObject({ error: { error_code: 'REQUEST.INVALID', message: expect.stringMatching(problem) } });
  });

  it('Issue 10 bounded input: a body over the request limit is REQUEST.TOO_LARGE (not retryable), before anything is recorded', async () => {
    const r = await stack.request<{ code: string; retryable: boolean; message: string }>(PROCESS, request({ message_history: [{ role: 'user', content: 'x'.repeat(MAX_REQUEST_BYTES), timestamp: new Date(0).toISOString() }] }), 30_000);
    expect(r).toMatchObject({ ok: false, body: { code: 'REQUEST.TOO_LARGE', retryable: false } });
    expect(r.body.message).toContain(String(MAX_REQUEST_BYTES));
  });

  it('Issue 10 reused request_id: the same content gets the recorded outcome again; other content gets REQUEST.CONFLICT', async () => {
    const first = request({ request_id: `req-${randomUUID()}`, message: 'add task water the plants' });
    const a = await send(stack, first);
    const again = await send(stack, first);
    expect(a.ok && again.ok).toBe(true);
    expect(again.body).toEqual(a.body);
    const conflict = await send<{ code: string; retryable: boolean }>(stack, { ...first, message: 'delete all my tasks' });
    expect(conflict).toMatchObject({ ok: false, body: { code: 'REQUEST.CONFLICT', retryable: false } });
    // The run still holds one request: the first.
    const events = await stack.runEvents(a.body.run_id);
    expect(events.filter((e) => e.type === 'RunCreated')).toHaveLength(1);
    expect(events[0].data).toMatchObject({ parameters: { message: 'add task water the plants' } });
  });

  it('Issue 10 rate limit: a flood of rejected requests from one caller is turned away (REQUEST.RATE_LIMITED, retryable) before it reaches the log', async () => {
    const jsm = await jetstreamManager(stack.nc);
    const flooder = `flood-${randomUUID()}`;
    const before = (await jsm.streams.info(LOG_STREAM)).state.last_seq;
    const flood = 40;
    const replies = [];
    for (let i = 0; i < flood; i++) replies.push(await send<DecisionReply & { code?: string; retryable?: boolean }>(stack, { user_id: flooder, conversation_id: 'not-a-uuid', message: 'hi' }));
    const recorded = replies.filter((r) => r.ok);
    const turnedAway = replies.filter((r) => !r.ok);
    expect(recorded).toHaveLength(REJECTED_BURST);
    expect(recorded.every((r) => r.body.response_text === INVALID)).toBe(true);
    expect(turnedAway).toHaveLength(flood - REJECTED_BURST);
    expect(turnedAway.every((r) => r.body.code === 'REQUEST.RATE_LIMITED' && r.body.retryable === true)).toBe(true);
    // The log holds the recorded rejections and nothing of the turned-away ones: fewer new messages than requests.
    const after = (await jsm.streams.info(LOG_STREAM)).state.last_seq;
    const { state: runsOfFlooder } = await stack.log.replay((n: number, e) => (e.type === 'RunCreated' && (e.data as { user_id?: string }).user_id === flooder ? n + 1 : n), 0, { filter: 'rl.log.run.>', fromSeq: before + 1 });
    expect(runsOfFlooder).toBe(REJECTED_BURST);
    expect(after - before).toBeLessThan(turnedAway.length);
    // Another caller is not affected by this one's flood.
    expect(await send(stack, request({ conversation_id: 'not-a-uuid' }))).toMatchObject({ ok: true, body: { response_text: INVALID } });
  });
});
