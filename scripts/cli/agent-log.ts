/**
 * The local log of `runledger agent --log <file>`: the same session events the decision service appends to a
 * session's run (SessionLlmRequested, SessionLlmCompleted, SessionToolRequested, SessionToolCompleted,
 * SessionAccounted, SessionNoted, SessionFinished), one JSON envelope `{type, data}` per line. A file rather than
 * a local nats-server: the CLI must run where no NATS is installed, and a line-per-event file is already an
 * append-only log that a second run can replay — running again with the same file resumes an interrupted
 * session without sending a completed model request or tool call again, or prints a finished session's result.
 */
import { appendFile, readFile } from 'node:fs/promises';
import { journalEntryOf, journalEvent, type AIAgentResult, type SessionJournal } from '@runledger/agent-session';

const FINISHED = 'SessionFinished';

export interface LocalLog {
  readonly journal: SessionJournal;
  /** The recorded result of a session this file already finished. */
  readonly finished?: Omit<AIAgentResult, 'accounting'>;
  finish(result: AIAgentResult): Promise<void>;
}

export async function openLocalLog(file: string): Promise<LocalLog> {
  let text = '';
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  // A line cut off by a crash is not a recorded event.
  const events = text.split('\n').flatMap((line) => {
    try {
      return line.trim() ? [JSON.parse(line) as { type: string; data: unknown }] : [];
    } catch {
      return [];
    }
  });
  const finished = events.find((e) => e.type === FINISHED)?.data as Omit<AIAgentResult, 'accounting'> | undefined;
  const write = (event: { type: string; data: unknown }) => appendFile(file, `${JSON.stringify(event)}\n`);
  return {
    journal: {
      recorded: events.flatMap((e) => {
        const entry = journalEntryOf(e);
        return entry ? [entry] : [];
      }),
      append: (entry) => write(journalEvent(entry)),
    },
    ...(finished ? { finished } : {}),
    finish: ({ accounting: _folded, ...result }) => write({ type: FINISHED, data: result }),
  };
}
