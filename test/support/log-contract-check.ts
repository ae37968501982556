import fs from 'node:fs';
import path from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { EventLog, LOG_STREAM, LOG_SUBJECT_PREFIX, tryStoredEvents, type EventCodec } from '@runledger/event-log';
import { ERASED_TEXT, ERASED_VALUE, isSealed, SEALED_FIELDS } from '@runledger/messaging';
import { LogContracts, type LoggedEvent } from '@runledger/testing';

/** How many distinct problems a failing suite lists (each with how often it occurred and where first). */
const MAX_LISTED = 40;

let contracts: LogContracts | undefined;

/** The producer name of events the test harness appends itself (TestStack's own EventLog). */
const HARNESS = 'test';

const isErased = (v: unknown) => v === ERASED_TEXT || (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 1 && (v as { erased?: unknown }).erased === ERASED_VALUE.erased);

/**
 * Issue 26 "every record as the contract says", run by TestStack.stop() over the whole log of the suite's stack (of a
 * shared stack: from `fromSeq`, what was written since the suite attached):
 * every message against the log record schema, every event against the schema proto-contracts/event-types.json maps
 * its type to (LogContracts). Returns the problems grouped, or none. One pass of pipelined direct gets over the log
 * (a suite writes a few thousand events), schemas compiled once per test file.
 */
export async function logContractProblems(nc: NatsConnection, storedLog: EventLog, codec: EventCodec, fromSeq = 1): Promise<string[]> {
  contracts ??= new LogContracts({ fields: SEALED_FIELDS, isSealed, isErased });
  const checker = contracts;
  const found = new Map<string, { count: number; first: string }>();
  const note = (where: string, key: string) => {
    const seen = found.get(key);
    if (seen) seen.count++;
    else found.set(key, { count: 1, first: where });
  };
  try {
    const info = await (await jetstreamManager(nc)).streams.info(LOG_STREAM);
    const from = Math.max(info.state.first_seq, fromSeq);
    if (info.state.messages === 0 || from > info.state.last_seq) return [];
    await storedLog.messages(`${LOG_SUBJECT_PREFIX}.>`, from, info.state.last_seq, async (m) => {
      // What the harness itself put there is a fixture, not a record of ours: events it appended as `test` (callers
      // recorded for a test, histories in old shapes, forgeries a verifier must catch) and messages that are not
      // events at all (readers skip them too: libs/event-log tryStoredEvents).
      const events = tryStoredEvents(m).filter((e) => e.metadata.producer !== HARNESS);
      if (!events.length) return;
      for (const p of checker.checkRecord(JSON.parse(new TextDecoder().decode(m.data)))) note(`seq ${m.seq}`, `log record: ${p}`);
      for (const stored of events) {
        const opened = await codec.open(stored);
        const where = `seq ${m.seq}.${stored.index} (${String(stored.metadata.producer)})`;
        for (const p of checker.checkEvent(stored as unknown as LoggedEvent, opened as unknown as LoggedEvent)) note(where, `${stored.type} ${p}`);
      }
    });
  } catch (err) {
    note('', `the log could not be read: ${(err as Error).message}`);
  }
  const lines = [...found].map(([problem, { count, first }]) => `${problem} (${count}×, first at ${first})`);
  return lines.length > MAX_LISTED ? [...lines.slice(0, MAX_LISTED), `… and ${lines.length - MAX_LISTED} more`] : lines;
}

/**
 * Leaves a suite's problems where the e2e run's global teardown finds them (test/support/e2e.global-*.js),
 * so the run fails listing them without cutting the suite's own cleanup short. Outside that run, says them on stderr.
 */
export function reportLogContractProblems(problems: readonly string[]): void {
  if (!problems.length) return;
  const suite = path.relative(path.resolve(__dirname, '..', '..'), expect.getState().testPath ?? 'unknown suite');
  const report = `${suite}:\n${problems.map((p) => `  ${p}`).join('\n')}\n`;
  const dir = process.env.RL_LOG_CONTRACTS_DIR;
  if (dir) fs.appendFileSync(path.join(dir, `${process.pid}.txt`), report);
  else process.stderr.write(`events in the log that their proto-contracts schema does not admit: ${report}`);
}
