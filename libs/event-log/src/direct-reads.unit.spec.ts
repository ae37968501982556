import { subjectMatches } from './direct-reads';

describe('subjectMatches: a dense read filters each message by subject as the server would', () => {
  it.each([
    ['rl.log.>', 'rl.log.run.r1', true],
    ['rl.log.>', 'rl.log', false],
    ['rl.log.run.*', 'rl.log.run.r1', true],
    ['rl.log.run.*', 'rl.log.run.r1.x', false],
    ['rl.log.run.*', 'rl.log.inbox.decision', false],
    ['rl.log.audit.chain', 'rl.log.audit.chain', true],
    ['rl.log.audit.chain', 'rl.log.audit.keys', false],
    ['rl.*.run.>', 'rl.log.run.r1', true],
    ['rl.log.run.>', 'rl.log.run', false],
    ['rl.log.run.>', 'rl.log.runs.r1', false],
    ['rl.log.run.>', 'rl.log.run.o.r1', true],
    ['>', 'rl', true],
  ])('%s matches %s: %s', (filter, subject, expected) => {
    expect(subjectMatches(filter, subject)).toBe(expected);
  });
});
