/**
 * The local log of `runledger agent --log <file>`: the session's journal as a file, one JSON envelope `{type, data}` per
 * line — the events the decision service appends to a session's run (`StepCompleted` per model attempt,
 * `ToolCallRequested` / `ToolCallRecorded` per tool call, `SessionAccounted`, `SessionNoted`, `SessionFinished`),
 * written through the same SessionRuntime port as the run engine (`eventListRuntime`). A file rather than a local
 * nats-server: the CLI must run where no NATS is installed, and a line-per-event file is already an append-only log.
 * Running again with the same file resumes an interrupted session without sending a completed model request or tool
 * call again, or prints a finished session's result. Files written before (SessionLlmCompleted …) still resume.
 */
import { appendFile, readFile } from 'node:fs/promises';
import { eventListRuntime, journalEntryOf, type AIAgentResult, type JournalEntry, type JournalEvent, type SessionRuntime } from '@runledger/agent-session';

const FINISHED = 'SessionFinished';

export interface LocalLog {
  readonly runtime: SessionRuntime;
  /** The session's records (accounting, notes) and the entries of a file written before, as read at start. */
  readonly recorded: readonly JournalEntry[];
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
  const events = text.split('\n').flatMap((line): JournalEvent[] => {
    try {
      return line.trim() ? [JSON.parse(line) as JournalEvent] : [];
    } catch {
      return [];
    }
  });
  const finished = events.find((e) => e.type === FINISHED)?.data as Omit<AIAgentResult, 'accounting'> | undefined;
  const write = (event: JournalEvent) => appendFile(file, `${JSON.stringify(event)}\n`);
  return {
    runtime: eventListRuntime(events, write),
    recorded: events.flatMap((e) => journalEntryOf(e) ?? []),
    ...(finished ? { finished } : {}),
    finish: ({ accounting: _folded, ...result }) => write({ type: FINISHED, data: result }),
  };
}
