import { connect, NatsConnection } from '@nats-io/transport-node';
import type { EventEnvelope } from '@runledger/event-log';
import { startNatsServer, NatsServerHandle } from '@runledger/testing';
import { CachedDataKeys, KvDataKeyStore, provisionDataKeys } from './data-keys';
import { ERASED_TEXT, ERASED_VALUE } from './sealed-values';
import { SealingCodec, SEALED_FIELDS } from './sealing';

jest.setTimeout(60_000);

const event = (type: string, data: unknown, metadata: Partial<EventEnvelope['metadata']> = {}): EventEnvelope => ({
  type, data, metadata: { event_id: 'e', stream_id: 's', schema_version: 1, contract_version: 'v1', producer: 'test', recorded_at: '2026-01-01T00:00:00.000Z', ...metadata },
});

describe('Issue 9 erasure: the sealing codec seals the table\'s fields with the owner\'s key', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let keys: CachedDataKeys;
  let codec: SealingCodec;

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect(server.connectOptions());
    await provisionDataKeys(nc);
    keys = new CachedDataKeys(new KvDataKeyStore(nc));
    codec = new SealingCodec(keys);
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  it('Issue 9 erasure: a user\'s fields are sealed (nested paths too), ids and codes stay, and open gives back the event', async () => {
    const plain = event('DecisionRecorded', { decision: { response_text: 'added milk' }, intent: { intent_type: 'CREATE_TASK' }, audit_record: { run_id: 'r1', conversation_id: 'c1', user_id: 'u1', input_message: 'add milk', classified_intent: 'CREATE_TASK' } }, { user_id: 'u1' });
    const sealed = await codec.seal(plain);
    expect(JSON.stringify(sealed.data)).not.toMatch(/milk/);
    expect(sealed.data).toMatchObject({ audit_record: { run_id: 'r1', conversation_id: 'c1', user_id: 'u1', classified_intent: 'CREATE_TASK' } });
    expect(await codec.open(sealed)).toEqual(plain);
  });

  it('Issue 22 a value sealed by this process opens from what it sealed (no decryption), as another process opens it; one changed in any byte is decrypted and refused', async () => {
    const plain = event('RunCreated', { run_id: 'r9', parameters: { message: 'add milk' } }, { user_id: 'u9' });
    const sealed = await codec.seal(plain);
    expect(await codec.open(sealed)).toEqual(plain);
    expect(await new SealingCodec(keys).open(sealed)).toEqual(plain);
    const value = (sealed.data as { parameters: { message: { ciphertext: string } } }).parameters.message;
    const flipped = `${value.ciphertext[0] === 'A' ? 'B' : 'A'}${value.ciphertext.slice(1)}`;
    const tampered = { ...sealed, data: { ...(sealed.data as object), parameters: { message: { ...value, ciphertext: flipped } } } };
    await expect(Promise.resolve(codec.open(tampered))).rejects.toThrow();
  });

  it('Issue 22 with the owner\'s key at hand, seal and open answer at once (no promise) with what the awaited path gives; a value that does not open is a rejection, never a throw', async () => {
    const plain = event('MessageExchanged', { run_id: 'r7', user_message: 'buy oat milk', assistant_message: 'added', pending_confirmation: null, at: 'x' }, { user_id: 'u7' });
    const first = await codec.seal(plain); // the key is read once, then cached
    const sealed = codec.seal(plain);
    expect(sealed).not.toBeInstanceOf(Promise);
    expect(JSON.stringify(sealed)).not.toMatch(/oat milk/);
    expect((sealed as EventEnvelope).data).toMatchObject({ run_id: 'r7', pending_confirmation: null, at: 'x' });
    const opened = new SealingCodec(keys).open(sealed as EventEnvelope); // another codec: decrypted, not remembered
    expect(opened).not.toBeInstanceOf(Promise);
    expect(opened).toEqual(plain);
    expect(await codec.open(first)).toEqual(plain);
    const value = (first.data as { user_message: { ciphertext: string } }).user_message;
    const tampered = { ...first, data: { ...(first.data as object), user_message: { ...value, ciphertext: `${value.ciphertext[0] === 'A' ? 'B' : 'A'}${value.ciphertext.slice(1)}` } } };
    let result: unknown;
    expect(() => (result = new SealingCodec(keys).open(tampered))).not.toThrow();
    await expect(result).rejects.toThrow();
  });

  it('Issue 22 a sealed event keeps its data\'s keys in their order (on the path to a sealed field too), a __proto__ key stays plain data, and fields that are absent or null stay as they are', async () => {
    const data = JSON.parse('{"audit_record":{"run_id":"r5","input_message":"add milk","__proto__":{"x":1},"response_preview":null},"decision":"d","__proto__":"p","intent":null}') as Record<string, unknown>;
    const plain = event('DecisionRecorded', data, { user_id: 'u5' });
    const sealed = await codec.seal(plain);
    const out = sealed.data as Record<string, Record<string, unknown>>;
    expect(Object.keys(out)).toEqual(['audit_record', 'decision', '__proto__', 'intent']);
    expect(Object.keys(out.audit_record)).toEqual(['run_id', 'input_message', '__proto__', 'response_preview']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(out.audit_record)).toBe(Object.prototype);
    expect(out.intent).toBeNull();
    expect(out.audit_record.response_preview).toBeNull();
    expect(JSON.stringify(out)).not.toMatch(/milk/);
    expect(plain.data).toBe(data); // the caller's event is not changed
    const opened = await new SealingCodec(keys).open(sealed);
    expect(JSON.stringify(opened)).toBe(JSON.stringify(plain));
  });

  it('Issue 22 the values this process sealed are remembered within a bound: one sealed thousands of seals ago is decrypted, the latest is not, both open to what was sealed', async () => {
    const local = new SealingCodec(keys);
    const plain = (i: number) => event('RunCreated', { run_id: `r-${i}`, parameters: { message: `note ${i}` } }, { user_id: 'u-many' });
    const sealed = [];
    for (let i = 0; i < 2_500; i++) sealed.push(await local.seal(plain(i)));
    const remembered = (local as unknown as { sealedHere: { current: Map<string, unknown>; previous: Map<string, unknown> } }).sealedHere;
    expect(remembered.current.size + remembered.previous.size).toBeLessThanOrEqual(2_000);
    expect(await local.open(sealed[0])).toEqual(plain(0));
    expect(await local.open(sealed[2_499])).toEqual(plain(2_499));
  });

  it('Issue 9 erasure: a case event is sealed with the case key, an event type outside the table and an ownerless event are left as they are', async () => {
    const step = await codec.seal(event('StepCompleted', { step_id: 'facts', step_index: 1, output: { facts: ['Tom fired Dana'] } }, { case_id: 'k1', user_id: 'u1' }));
    expect(JSON.stringify(step.data)).toContain('"owner":"case.');
    const other = event('RunDenied', { error: { error_code: 'X', message: 'm', retryable: false } }, { case_id: 'k1' });
    expect(await codec.seal(other)).toBe(other);
    const ownerless = event('StepCompleted', { output: 'campaign text' });
    expect(await codec.seal(ownerless)).toBe(ownerless);
    expect(Object.keys(SEALED_FIELDS)).toContain('MessageExchanged');
  });

  it('Issue 9 erasure: after the key is destroyed, sealed fields read as the erased marker and new data of the owner is refused (DATA.ERASED)', async () => {
    const sealed = await codec.seal(event('MessageExchanged', { run_id: 'r2', user_message: 'my secret', assistant_message: 'noted', pending_confirmation: { task_id: 't' }, at: 'x' }, { user_id: 'u-gone' }));
    await keys.destroy({ kind: 'user', id: 'u-gone' });
    expect((await codec.open(sealed)).data).toEqual({ run_id: 'r2', user_message: ERASED_TEXT, assistant_message: ERASED_TEXT, pending_confirmation: ERASED_VALUE, at: 'x' });
    await expect(codec.seal(event('MessageExchanged', { run_id: 'r3', user_message: 'again' }, { user_id: 'u-gone' }))).rejects.toMatchObject({ code: 'DATA.ERASED' });
    // An event of the erased owner that carries none of their data is still accepted (a run's closing event).
    const closing = event('MessageExchanged', { run_id: 'r4' }, { user_id: 'u-gone' });
    expect(await codec.seal(closing)).toBe(closing);
  });

  it('Issue 21 privacy: a tool call\'s recorded failure text (ToolCallRecorded error.message) is sealed with the user\'s key, its code stays, and after erasure it no longer opens', async () => {
    const failed = { call_id: 'tool-1', child_run_id: 'c1', status: 'failed', error: { error_code: 'SESSION.TOOL_ERROR', message: 'no such patient: Dana Reyes', retryable: false } };
    const sealed = await codec.seal(event('ToolCallRecorded', failed, { user_id: 'u-tool' }));
    expect(JSON.stringify(sealed.data)).not.toMatch(/Dana/);
    expect(sealed.data).toMatchObject({ status: 'failed', error: { error_code: 'SESSION.TOOL_ERROR', retryable: false } });
    expect((await codec.open(sealed)).data).toEqual(failed);
    await keys.destroy({ kind: 'user', id: 'u-tool' });
    expect((await codec.open(sealed)).data).toEqual({ ...failed, error: { ...failed.error, message: ERASED_TEXT } });
  });

  it('Issue 23 privacy: a failed run\'s error text (RunFailed error.message) is sealed with the owner\'s key, its code stays; after erasure it reads as erased, and a run of the erased owner still ends (its text stored as the erased marker)', async () => {
    const failed = { error: { error_code: 'AGENT.FAILED', message: 'model error: cannot schedule "call Dana Reyes at 555-0142"', retryable: false } };
    const sealed = await codec.seal(event('RunFailed', failed, { user_id: 'u-failed' }));
    expect(JSON.stringify(sealed.data)).not.toMatch(/Dana|555/);
    expect(sealed.data).toMatchObject({ error: { error_code: 'AGENT.FAILED', retryable: false } });
    expect((await codec.open(sealed)).data).toEqual(failed);
    await keys.destroy({ kind: 'user', id: 'u-failed' });
    expect((await codec.open(sealed)).data).toEqual({ error: { ...failed.error, message: ERASED_TEXT } });
    const after = await codec.seal(event('RunFailed', { error: { error_code: 'RUN.ABANDONED', message: 'cut short while asking about Dana', retryable: false } }, { user_id: 'u-failed' }));
    expect(after.data).toEqual({ error: { error_code: 'RUN.ABANDONED', message: ERASED_TEXT, retryable: false } });
    // Recorded history: a RunFailed written before the field was sealed (its text plain) reads as it was written.
    const before = event('RunFailed', { error: { error_code: 'TOOL.FAILED', message: 'written plain before', retryable: true } }, { user_id: 'u-earlier' });
    expect((await codec.open(before)).data).toEqual(before.data);
  });
});
