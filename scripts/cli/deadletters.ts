/**
 * runledger deadletters — poison messages the consumers gave up on (rl.log.deadletter.*).
 *
 *   deadletters list [--durable NAME] [--json]   every dead letter, its reason and its retries
 *   deadletters retry ID [--json]                re-publish the original command (recorded as DeadLetterRetried)
 */
import type { DeadLetter, DeadLettersListResult } from '../../libs/contracts/src/generated';
import { SUBJECTS } from '../../libs/contracts/src/subjects';
import { CONNECTION_USAGE } from './connection';
import { table, time } from './format';
import { ask, CliError, json, parseArgs, runCommand, str, withConnection } from './operator';

const USAGE = `usage: runledger deadletters list [--durable NAME] [--json] | runledger deadletters retry ID [--json]   ${CONNECTION_USAGE}`;

export function main(args: string[]): Promise<number> {
  return runCommand(async () => {
    const [sub, ...rest] = args;
    if (sub === 'list') {
      const p = parseArgs(rest, { valued: ['durable'], switches: ['json'] }, USAGE);
      return withConnection(p.conn, async (nc) => {
        const res = await ask<DeadLettersListResult>(nc, SUBJECTS.deadLettersList, str(p, 'durable') ? { durable: str(p, 'durable') } : {});
        if (p.flags.has('json')) return (json(res), 0);
        if (res.dead_letters.length === 0) return (process.stdout.write('no dead letters\n'), 0);
        process.stdout.write(table(['ID', 'RECORDED (UTC)', 'SUBJECT', 'REASON', 'CODE', 'DELIVERIES', 'RETRIES'], res.dead_letters.map(row)));
        return 0;
      });
    }
    if (sub === 'retry') {
      const p = parseArgs(rest, { valued: [], switches: ['json'] }, USAGE);
      if (p.positional.length !== 1) throw new CliError(`deadletters retry takes one ID (see deadletters list)\n${USAGE}`, 2);
      return withConnection(p.conn, async (nc) => {
        const letter = await ask<DeadLetter>(nc, SUBJECTS.deadLettersRetry, { id: p.positional[0], requested_by: process.env.USER ?? 'operator' });
        if (p.flags.has('json')) return (json(letter), 0);
        const last = letter.retries[letter.retries.length - 1];
        process.stdout.write(`re-published ${letter.id} on ${letter.subject} as log message ${last?.new_seq} (retry ${letter.retries.length})\n`);
        return 0;
      });
    }
    throw new CliError(USAGE, 2);
  });
}

const row = (l: DeadLetter): string[] => [l.id, time(l.recorded_at), l.subject, l.reason, l.error_code, String(l.deliveries), l.retryable ? String(l.retries.length) : 'n/a (run event)'];
