import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import { rawWriterProblem, writerHeaders, writerMessageProblem } from './stored-event';

/** The header block as the server sends it, and the same headers decoded as the client hands them out. */
function both(build: (h: MsgHdrs) => void): { raw: Uint8Array; decoded: MsgHdrs } {
  const h = natsHeaders();
  build(h);
  return { raw: (h as unknown as { encode(): Uint8Array }).encode(), decoded: h };
}

describe('A log message is a writer\'s only when it carries the writer\'s header and no other message\'s sequence (README: a message the bus itself stores)', () => {
  /** Stamps as nats-server adds them to what it hands out of `stream` (a direct get's answer). */
  const stamp = (h: MsgHdrs, stream: string, seq: number) => {
    h.append('Nats-Stream', stream);
    h.append('Nats-Subject', 'rl.log.run.x');
    h.append('Nats-Sequence', String(seq));
    h.append('Nats-Time-Stamp', '2026-11-27T20:00:00Z');
  };
  // [case, headers, the message's sequence, stamped by its read (a direct get), verdict]
  const cases: Array<[string, (h: MsgHdrs) => void, number, boolean, RegExp | null]> = [
    ['a commit as an append writes it, delivered to a consumer', (h) => writerHeaders(['RunCreated', 'StepStarted'], h).set('traceparent', '00-abc-def-01'), 12, false, null],
    ['a commit as a direct get hands it out (the server stamps it once)', (h) => stamp(writerHeaders('RunCreated', h), 'RUNLEDGER_LOG', 12), 12, true, null],
    ['a JetStream API answer (no writer\'s header)', (h) => h.set('Nats-Stream', 'RUNLEDGER_LOG'), 12, false, /no writer's header/],
    ['an empty writer\'s header', (h) => h.set('Rl-Event-Type', ''), 12, false, /no writer's header/],
    ['a direct get\'s copy of message 7 stored at 12, read by a direct get', (h) => { stamp(writerHeaders('RunCreated', h), 'RUNLEDGER_LOG', 7); stamp(h, 'RUNLEDGER_LOG', 12); }, 12, true, /copy of message 7/],
    ['the same copy delivered to a consumer (nothing stamped on top)', (h) => stamp(writerHeaders('RunCreated', h), 'RUNLEDGER_LOG', 7), 12, false, /copy of message 7/],
    ['a copy of message 12 of another stream stored at 12 of the log, read by a direct get', (h) => { stamp(writerHeaders('RunCreated', h), 'KV_rl_doc_tasks', 12); stamp(h, 'RUNLEDGER_LOG', 12); }, 12, true, /copy of message 12 of stream KV_rl_doc_tasks/],
    ['the same copy delivered to a consumer', (h) => stamp(writerHeaders('RunCreated', h), 'KV_rl_doc_tasks', 12), 12, false, /copy of message 12 of stream KV_rl_doc_tasks/],
  ];
  it.each(cases)('%s', (_name, build, seq, stamped, expected) => {
    const { raw, decoded } = both(build);
    const verdict = writerMessageProblem({ seq, subject: 'rl.log.run.x', data: new Uint8Array(), headers: decoded, stamped });
    if (expected) expect(verdict).toMatch(expected);
    else expect(verdict).toBeNull();
    // A consumer's delivery is checked off its raw header block: the same verdict.
    if (!stamped) expect(rawWriterProblem(raw)).toBe(verdict);
  });

  it('a message without any header block is no writer\'s', () => {
    expect(rawWriterProblem(undefined)).toMatch(/no writer's header/);
    expect(writerMessageProblem({ seq: 3, subject: 'rl.log.run.x', data: new Uint8Array() })).toMatch(/no writer's header/);
  });
});
