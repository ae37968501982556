import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import logRecordSchema from '../../../proto-contracts/schemas/runs/event-envelope.schema.json';
import { sealAll, type EventCodec } from './codec';
import { decodeMessage, encodeCommit, encodeEnvelope, EventEnvelope, NewEvent, newEnvelope, storedAt } from './envelope';

const event = (type: string, n: number, extra: Record<string, string> = {}): EventEnvelope => ({
  type, data: { n },
  metadata: { event_id: `00000000-0000-4000-8000-00000000000${n}`, stream_id: 'run-1', run_id: 'run-1', causation_id: 'cmd-1', schema_version: 1, contract_version: 'v1', producer: 'spec', recorded_at: '2026-11-26T00:00:00.000Z', ...extra },
});

describe('Log format 2: one message per append (a commit), format 1 read forever', () => {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const validRecord = ajv.compile(logRecordSchema);
  const json = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes)) as unknown;

  it('a commit and a format-1 message are both LogRecords of proto-contracts', () => {
    const commit = encodeCommit([event('Opened', 1), event('Started', 2, { case_id: 'case-9' })]);
    expect(validRecord(json(commit))).toBe(true);
    expect(validRecord(json(encodeEnvelope(event('Opened', 1))))).toBe(true);
    expect(validRecord({ commit: { format: 2, metadata: {}, events: [] } })).toBe(false);
  });

  it('a commit decodes to exactly the envelopes that were written, metadata an event does not share included', () => {
    const written = [event('Opened', 1, { case_id: 'case-9' }), event('Started', 2), event('Closed', 3, { causation_id: 'other' })];
    expect(decodeMessage(encodeCommit(written))).toEqual(written);
  });

  it('Issue 22 a commit decodes to metadata objects of their own, key for key in the order the spread copy made them, a "__proto__" key an own key (the prototype untouched)', () => {
    const [a, b] = decodeMessage(encodeCommit([event('Opened', 1), event('Started', 2, { case_id: 'case-9' })]));
    expect(a.metadata).not.toBe(b.metadata);
    expect(Object.keys(a.metadata)).toEqual([...Object.keys(event('Opened', 1).metadata).filter((k) => k !== 'event_id'), 'event_id']);
    expect(Object.keys(b.metadata)).toEqual([...Object.keys(a.metadata).slice(0, -1), 'case_id', 'event_id']);
    const body = '{"commit":{"format":2,"metadata":{"stream_id":"s","__proto__":{"polluted":true}},"events":[{"id":"e1","type":"A","data":1}]}}';
    const [odd] = decodeMessage(new TextEncoder().encode(body));
    expect(Object.getPrototypeOf(odd.metadata)).toBe(Object.prototype);
    expect(Object.keys(odd.metadata)).toEqual(['stream_id', '__proto__', 'event_id']);
    expect((odd.metadata as unknown as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('the metadata the events of a commit share is written once', () => {
    const one = encodeCommit([event('Opened', 1)]).length;
    const three = encodeCommit([event('Opened', 1), event('Started', 2), event('Closed', 3)]).length;
    const perEvent = encodeEnvelope(event('Started', 2)).length;
    expect((three - one) / 2).toBeLessThan(perEvent / 2);
  });

  it('a message that is neither format is refused, never read as an empty commit', () => {
    for (const body of ['{}', '{"commit":{"format":3,"metadata":{},"events":[{"id":"x","type":"A","data":1}]}}', '{"commit":{"format":2,"metadata":{},"events":[]}}', '[1]']) {
      expect(() => decodeMessage(new TextEncoder().encode(body))).toThrow('not a Runledger event envelope');
    }
  });
});

describe('Issue 22: an append builds its envelopes without object spreads, byte for byte what the spread built', () => {
  const stamp = { stream_id: 'run-1', command_id: 'cmd-1', producer: 'spec', recorded_at: '2026-11-27T00:00:00.000Z', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
  const spread = (e: NewEvent, id: string) => ({
    type: e.type, data: e.data,
    metadata: {
      ...e.metadata, event_id: id, stream_id: stamp.stream_id, causation_id: e.metadata?.causation_id ?? stamp.command_id, schema_version: 1, contract_version: 'v1',
      producer: stamp.producer, recorded_at: e.metadata?.recorded_at ?? stamp.recorded_at, traceparent: stamp.traceparent,
    },
  });

  it('the same keys in the same order with the same values, whatever metadata the caller gave (a deferred time, its own causation, none)', () => {
    const given: NewEvent[] = [
      { type: 'RunCreated', data: { n: 1 }, metadata: { run_id: 'run-1', user_id: 'u1' } },
      { type: 'StepCompleted', data: { n: 2 }, metadata: { run_id: 'run-1', recorded_at: '2026-11-26T00:00:00.000Z', causation_id: 'cmd-0' } },
      { type: 'RunStarted', data: null },
      { type: 'Odd', data: 1, metadata: JSON.parse('{"run_id":"run-1","__proto__":{"polluted":true}}') as NewEvent['metadata'] },
    ];
    for (const e of given) {
      const built = newEnvelope(e, 'id-1', stamp);
      expect(JSON.stringify(built)).toBe(JSON.stringify(spread(e, 'id-1')));
      expect(Object.getPrototypeOf(built.metadata)).toBe(Object.prototype);
    }
    const stored = storedAt(newEnvelope(given[0], 'id-1', stamp), 7, 0, 'rl.log.run.x');
    expect(stored).toEqual({ ...spread(given[0], 'id-1'), seq: 7, index: 0, subject: 'rl.log.run.x' });
  });

  it('a codec with its keys at hand seals an append without a promise; one that waits is awaited whole, and a seal that throws loses no other outcome', async () => {
    const envelopes = [event('A', 1), event('B', 2)];
    const atOnce: EventCodec = { seal: (e) => ({ ...e, data: 'sealed' }), open: (e) => e };
    const sealed = sealAll(atOnce, envelopes);
    expect(sealed).not.toBeInstanceOf(Promise);
    expect((sealed as EventEnvelope[]).map((e) => e.data)).toEqual(['sealed', 'sealed']);
    const waiting: EventCodec = { seal: (e) => (e.type === 'A' ? e : Promise.resolve({ ...e, data: 'later' })), open: (e) => e };
    expect((await sealAll(waiting, envelopes)).map((e) => e.data)).toEqual([{ n: 1 }, 'later']);
    const unhandled = jest.fn();
    process.on('unhandledRejection', unhandled);
    const failing: EventCodec = { seal: (e) => { if (e.type === 'B') throw new Error('refused'); return Promise.reject(new Error('also refused')); }, open: (e) => e };
    expect(() => sealAll(failing, envelopes)).toThrow('refused');
    await new Promise((r) => setImmediate(r));
    process.off('unhandledRejection', unhandled);
    expect(unhandled).not.toHaveBeenCalled();
  });
});
