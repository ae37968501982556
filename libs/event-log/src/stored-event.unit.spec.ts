import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import { rawWriterProblem, writerHeaders, writerMessageProblem } from './stored-event';

/** The header block as the server sends it, and the same headers decoded as the client hands them out. */
function both(build: (h: MsgHdrs) => void): { raw: Uint8Array; decoded: MsgHdrs } {
  const h = natsHeaders();
  build(h);
  return { raw: (h as unknown as { encode(): Uint8Array }).encode(), decoded: h };
}

describe('A log message is a writer\'s only when it carries the writer\'s header and no other message\'s sequence (README: a message the bus itself stores)', () => {
  const cases: Array<[string, (h: MsgHdrs) => void, number, RegExp | null]> = [
    ['a commit as an append writes it', (h) => writerHeaders(['RunCreated', 'StepStarted'], h).set('traceparent', '00-abc-def-01'), 12, null],
    ['a commit as a direct get hands it out (the server adds its own sequence)', (h) => writerHeaders('RunCreated', h).append('Nats-Sequence', '12'), 12, null],
    ['a JetStream API answer (no writer\'s header)', (h) => h.set('Nats-Stream', 'RUNLEDGER_LOG'), 12, /no writer's header/],
    ['an empty writer\'s header', (h) => h.set('Rl-Event-Type', ''), 12, /no writer's header/],
    ['a direct get\'s copy of message 7 stored at 12 (the original\'s sequence kept)', (h) => { writerHeaders('RunCreated', h).append('Nats-Sequence', '7'); h.append('Nats-Sequence', '12'); }, 12, /copy of log message 7/],
    ['the same copy read through a consumer (no sequence added)', (h) => writerHeaders('RunCreated', h).append('Nats-Sequence', '7'), 12, /copy of log message 7/],
  ];
  it.each(cases)('%s: the raw header block and the decoded headers give one verdict', (_name, build, seq, expected) => {
    const { raw, decoded } = both(build);
    const fromDecoded = writerMessageProblem({ seq, subject: 'rl.log.run.x', data: new Uint8Array(), headers: decoded });
    const fromRaw = rawWriterProblem(raw, seq);
    expect(fromRaw).toBe(fromDecoded);
    if (expected) expect(fromRaw).toMatch(expected);
    else expect(fromRaw).toBeNull();
  });

  it('a message without any header block is no writer\'s', () => {
    expect(rawWriterProblem(undefined, 3)).toMatch(/no writer's header/);
    expect(writerMessageProblem({ seq: 3, subject: 'rl.log.run.x', data: new Uint8Array() })).toMatch(/no writer's header/);
  });
});
