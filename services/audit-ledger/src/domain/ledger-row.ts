import type { StoredEvent } from '@runledger/event-log';
import type { ChainEntry } from '@runledger/governance';
import { evolveIndexedRun, type IndexedRun, initialRunSummary, isListed, listedRow, type RunSummary } from '@runledger/runs';
import { type DecisionRecordFields, withDecisionRecords } from './audit-decisions';

/**
 * Where one chained event of a run is: [chain_seq, log_seq, log_index, event_id]. The event itself (its type, time,
 * run tree and data) is the log's: rl.audit.query reads it there (issue 22: the row keeps no copy of the log).
 */
export type AuditPointer = [chainSeq: number, logSeq: number, logIndex: number, eventId: string];

/**
 * The ledger's one row per run (issue 22), in `runs_index`: the run's summary for rl.runs.list (IndexedRun) and its
 * audit trail for rl.audit.query, the chained events whose chain entry names the run, in chain order, each once. Both
 * are folded from the same batch in one write; releases before issue 22 wrote the trail, data copied, to a second row
 * (`audit_events`). A row whose run has no chained event yet has no trail fields. A task-assistant run's row also keeps
 * its DecisionRecorded's contract-000 audit record (DecisionRecordFields), folded from its events in the same write;
 * releases before wrote it to a second document (`audit_decisions`).
 */
export type LedgerRow = IndexedRun & DecisionRecordFields & {
  /** The first run tree named by the trail's events (as the `audit_events` row's `root_run_id`): rl.audit.query by root_run_id finds rows by it. */
  audit_root_run_id?: string | null;
  audit_trail?: AuditPointer[];
};

/** The row with one more chained event (the same row when it holds the event already). */
export function withChainEntry(row: LedgerRow, entry: ChainEntry): LedgerRow {
  return withChainEntries(row, [entry]);
}

/**
 * The row with more chained events, in order, each once (the same row when it holds them all already): one copy for
 * the batch, none when `owned` (a row this fold made, so no one else holds it: its trail array is still copied).
 */
function withChainEntries(row: LedgerRow, entries: readonly ChainEntry[], owned = false): LedgerRow {
  let trail: AuditPointer[] | null = null;
  let root = row.audit_root_run_id;
  for (const entry of entries) {
    if ((trail ?? row.audit_trail)?.some((p) => p[3] === entry.event_id)) continue;
    trail ??= [...(row.audit_trail ?? [])];
    root = root ?? (entry.body.root_run_id as string | undefined) ?? null;
    trail.push([entry.seq, Number(entry.body.log_seq), Number(entry.body.log_index ?? 0), entry.event_id]);
  }
  if (!trail) return row;
  const next = owned ? row : { ...row };
  next.audit_root_run_id = root;
  next.audit_trail = trail;
  return next;
}

/**
 * Folds into run `id`'s row its run events (log order, whole commits: `events` of the stream `id`) and the chain
 * entries that name it (the same row when nothing changed). Live ingest and replay fold with this.
 * `folded`: each event folded into the summary. A DecisionRecorded's audit record is kept whoever wrote it, as the
 * chain keeps every audited event (a forged run's row lists no run, but its record is answered as before issue 22).
 */
export function evolveLedgerRow(row: LedgerRow | null, id: string, events: readonly StoredEvent[], entries: readonly ChainEntry[], folded?: (type: string, after: RunSummary) => void): LedgerRow {
  const start = row ?? initialRunSummary(id);
  // evolveIndexedRun keeps the row's other fields (the trail) as they were.
  const indexed = events.length ? withDecisionRecords(evolveIndexedRun(start, events, folded) as LedgerRow, events) : start;
  // A row the events made is this fold's own (the row given, or null, is never changed).
  return entries.length ? withChainEntries(indexed, entries, indexed !== row) : indexed;
}

/**
 * Whether rl.runs.list lists the row: a run its owner wrote (isListed), and a run at all: a row holding only chain
 * entries that name its id from another run's events (no event of its own folded, no ownership track) is none.
 */
export function isListedRun(row: LedgerRow): boolean {
  return isListed(row) && !(row.audit_trail && row.ownership === undefined && row.event_count === 0);
}

/** The row without its audit trail and audit record: what the runs index compares and lists. */
export function indexedRunOf(row: LedgerRow): IndexedRun {
  const { audit_root_run_id: _root, audit_trail: _trail, audit_record: _record, audit_conversation_id: _conversation, ...indexed } = row;
  return indexed;
}

/** The row as rl.runs.list answers it (the wire RunSummary). */
export function listedRunOf(row: LedgerRow): RunSummary {
  return listedRow(indexedRunOf(row));
}
