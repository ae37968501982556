import { journalEvent, type JournalEntry, type SessionJournal } from '@runledger/agent-session';
import type { RunEngine } from '@runledger/runs';
import { journalOf } from '../domain/session-run';

/**
 * The session journal on its run: each entry is a run event appended on the version this carrier last saw
 * (a second carrier of the same run fails instead of interleaving) with a command id derived from the entry,
 * so a retried append deduplicates.
 */
export function runJournal(run: RunEngine, events: ReadonlyArray<{ type: string; data: unknown }>): SessionJournal {
  return {
    recorded: journalOf(events),
    async append(entry: JournalEntry) {
      const label = `j:${entry.kind}:${'seq' in entry ? entry.seq : entry.index}`;
      await run.record([journalEvent(entry)], label);
    },
  };
}
