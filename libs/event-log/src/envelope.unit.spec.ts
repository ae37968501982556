import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import logRecordSchema from '../../../proto-contracts/schemas/runs/event-envelope.schema.json';
import { decodeMessage, encodeCommit, encodeEnvelope, EventEnvelope } from './envelope';

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
