/**
 * runledger deadletters — poison messages the consumers gave up on (rl.log.deadletter.*).
 *
 *   deadletters list [--durable NAME] [--json]   every dead letter: its run, reason, whether a retry can succeed, its retries
 *   deadletters show ID [--json]                 one dead letter with its payload (sealed fields stay sealed)
 *   deadletters retry ID [--json]                re-publish the original command (recorded as DeadLetterRetried);
 *                                                refused (DEADLETTER.NOT_RETRYABLE) when a retry cannot succeed
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DeadLetter, DeadLettersListResult } from '../../libs/contracts/src/generated';
import { DURABLE_NAME } from '../../libs/contracts/src/dto/forms';
import { SUBJECTS } from '../../libs/contracts/src/subjects';
import { CONNECTION_USAGE } from './connection';
import { printable, table, time } from './format';
import { ask, CliError, unknownCommand, json, parseArgs, type ParsedArgs, runCommand, str, withConnection } from './operator';

export const USAGE = `usage: runledger deadletters list [--durable NAME] [--json]
       runledger deadletters show ID [--json]
       runledger deadletters retry ID [--json]
       ${CONNECTION_USAGE}
  list     every message a consumer gave up on, in the order recorded: its id, subject, run, reason, error code,
           deliveries, whether a retry can succeed and its retries (rl.deadletters.list)
           --durable NAME  only those of one durable consumer (e.g. audit-ledger, decision-inbox; default: every one)
  show     one dead letter (ID as list prints it, DURABLE:SEQUENCE) with its payload as the log stores it (sealed
           fields stay sealed)
  retry    re-publish the original command of dead letter ID on its subject as a new log message, recorded as
           DeadLetterRetried (rl.deadletters.retry); refused (DEADLETTER.NOT_RETRYABLE, saying why) when a retry cannot
           succeed: a run event, or a command refused for good
  --json   the answer as JSON
exit codes: 0 done, 1 refused by the stack (not found, not retryable, not granted: its error code is printed),
            2 usage (said before connecting), 3 the stack cannot be reached or this identity may not ask (refused: …)`;

/** A dead letter's id as the retry contract bounds it (DURABLE:SEQUENCE): the one place that says its form. */
const ID_PATTERN = new RegExp((JSON.parse(readFileSync(join(__dirname, '..', '..', 'proto-contracts', 'schemas', 'operations', 'dead-letter-retry-request.schema.json'), 'utf8')) as { properties: { id: { pattern: string } } }).properties.id.pattern);

/** `deadletters show|retry ID`: one ID of the form list prints (DURABLE:SEQUENCE), else a usage error before connecting. */
export function deadLetterId(sub: 'show' | 'retry', positional: readonly string[]): string {
  if (positional.length !== 1) throw new CliError(`deadletters ${sub} takes one ID (see deadletters list)\n${USAGE}`, 2);
  const id = positional[0];
  if (!ID_PATTERN.test(id)) throw new CliError(`ID must be DURABLE:SEQUENCE as deadletters list prints it (e.g. audit-ledger:42), got ${JSON.stringify(id)}\n${USAGE}`, 2);
  return id;
}

/** `--durable NAME`, checked before connecting by the rule rl.deadletters.list applies (DURABLE_NAME): else a usage error. */
function durableArg(p: ParsedArgs): string | undefined {
  const durable = str(p, 'durable');
  if (durable !== undefined && !DURABLE_NAME.test(durable)) {
    throw new CliError(`--durable must be a durable consumer name (letters, digits, _ or -, e.g. audit-ledger), got ${JSON.stringify(durable)}\n${USAGE}`, 2);
  }
  return durable;
}

export function main(args: string[]): Promise<number> {
  return runCommand(async () => {
    const [sub, ...rest] = args;
    if (sub === 'list') {
      const p = parseArgs(rest, { valued: ['durable'], switches: ['json'] }, USAGE);
      const durable = durableArg(p);
      return withConnection(p.conn, async (nc) => {
        const res = await ask<DeadLettersListResult>(nc, SUBJECTS.deadLettersList, durable ? { durable } : {});
        if (p.flags.has('json')) return (json(res), 0);
        if (res.dead_letters.length === 0) return (process.stdout.write('no dead letters\n'), 0);
        process.stdout.write(table(['ID', 'RECORDED (UTC)', 'SUBJECT', 'RUN', 'REASON', 'CODE', 'DELIVERIES', 'RETRY CAN SUCCEED', 'RETRIES'], res.dead_letters.map(row)));
        return 0;
      });
    }
    if (sub === 'show') {
      const p = parseArgs(rest, { valued: [], switches: ['json'] }, USAGE);
      const id = deadLetterId('show', p.positional);
      return withConnection(p.conn, async (nc) => {
        const [durable] = id.split(':');
        const letter = (await ask<DeadLettersListResult>(nc, SUBJECTS.deadLettersList, { durable })).dead_letters.find((l) => l.id === id);
        if (!letter) throw new CliError(`DEADLETTER.NOT_FOUND: no dead letter ${id} (see deadletters list)`, 1);
        if (p.flags.has('json')) return (json(letter), 0);
        process.stdout.write(describe(letter));
        return 0;
      });
    }
    if (sub === 'retry') {
      const p = parseArgs(rest, { valued: [], switches: ['json'] }, USAGE);
      const id = deadLetterId('retry', p.positional);
      return withConnection(p.conn, async (nc) => {
        const letter = await ask<DeadLetter>(nc, SUBJECTS.deadLettersRetry, { id, requested_by: process.env.USER ?? 'operator' });
        if (p.flags.has('json')) return (json(letter), 0);
        const last = letter.retries[letter.retries.length - 1];
        process.stdout.write(`${printable(`re-published ${letter.id} on ${letter.subject} as log message ${last?.new_seq} (retry ${letter.retries.length})`)}\n`);
        return 0;
      });
    }
    throw unknownCommand(sub, USAGE);
  });
}

const row = (l: DeadLetter): string[] => [l.id, time(l.recorded_at), l.subject, l.run_id ?? '-', l.reason, l.error_code, String(l.deliveries), l.retryable ? 'yes' : 'no', String(l.retries.length)];

/** One dead letter for a person: what it was, why it failed, whether a retry can succeed, and its payload as stored. */
function describe(l: DeadLetter): string {
  const lines = [
    `dead letter ${l.id}  recorded ${time(l.recorded_at)}`,
    `  subject     ${l.subject}${l.event_type ? `  (${l.event_type})` : ''}`,
    `  run         ${l.run_id ?? '-'}`,
    `  failed      ${l.reason}: ${l.error_code} after ${l.deliveries} deliver${l.deliveries === 1 ? 'y' : 'ies'}`,
    `  retry       ${l.retryable ? 'can succeed: runledger deadletters retry ' + l.id : `cannot succeed: ${l.not_retryable_because}`}`,
    ...l.retries.map((r) => `  retried     ${time(r.recorded_at)} by ${r.requested_by} as log message ${r.new_seq}`),
    '  payload (as the log stores it; sealed fields stay sealed):',
    ...JSON.stringify(l.payload ?? null, null, 2).split('\n').map((line) => `    ${line}`),
  ];
  return `${lines.map(printable).join('\n')}\n`;
}
