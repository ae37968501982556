import type { StoredEvent } from '@runledger/event-log';
import { ChainEntry, chainEntry, ChainEvent, dataDigest, LoggedAuditEvent } from '@runledger/governance';

/** Events that enter the tamper-evident chain: authorisations, outcomes and every audited effect. */
export const CHAINED_EVENT_TYPES: ReadonlySet<string> = new Set([
  'RunCreated', 'AuthzDecided', 'RunCompleted', 'RunFailed', 'RunDenied', 'RunCancelled',
  'ToolCallAudited', 'DbWriteAudited', 'PromotionAudited', 'PromotionRefused',
  'ExportAuthorized', 'ExportAssembled', 'ExportFinalized', 'DecisionRecorded',
]);

/**
 * What the chain records of one log event: its identity, place in the log, run tree and a digest of its data.
 * The data itself stays in the log (the chain proves it; an event of any size fits in an entry), and erased
 * personal data is ciphertext there, so the chain keeps verifying after a key is destroyed.
 */
export function chainBodyOf(event: StoredEvent): ChainEvent {
  return {
    event_id: event.metadata.event_id,
    type: event.type,
    run_id: event.metadata.run_id ?? event.metadata.stream_id,
    root_run_id: event.metadata.root_run_id ?? null,
    parent_run_id: event.metadata.parent_run_id ?? null,
    case_id: event.metadata.case_id ?? null,
    producer: event.metadata.producer,
    recorded_at: event.metadata.recorded_at,
    log_seq: event.seq,
    // The event's place in its commit; absent for the first (and for every event of a format-1 message), so an
    // entry of a one-event commit is the entry the same event had before commits.
    ...(event.index > 0 ? { log_index: event.index } : {}),
    data_sha256: dataDigest(event.data),
  };
}

/** The log position a chain entry records of its event. */
export function chainedPosition(entry: ChainEntry | null): { seq: number; index: number } {
  return { seq: Number(entry?.body.log_seq ?? 0), index: Number(entry?.body.log_index ?? 0) };
}

/**
 * The next chain entry for one log event, or null when the event is not chained or is the entry just written
 * (a redelivery). Shared by the live writer and by replay, so the two cannot drift apart.
 */
export function nextChainEntry(last: ChainEntry | null, event: StoredEvent): ChainEntry | null {
  if (!CHAINED_EVENT_TYPES.has(event.type)) return null;
  if (last?.event_id === event.metadata.event_id) return null;
  return chainEntry(last, chainBodyOf(event), (last?.seq ?? 0) + 1);
}

/**
 * The chain as a pure fold over run events in log order: what the ledger writes live, and what an
 * operator recomputes from a replay to show the chain is exactly the log's audit events.
 */
export function evolveChain(chain: ChainEntry[], event: StoredEvent): ChainEntry[] {
  const next = nextChainEntry(chain[chain.length - 1] ?? null, event);
  return next ? [...chain, next] : chain;
}

/** The completeness view of a log event the chain must hold, or null when it is not audit-relevant. */
export function loggedAuditEvent(event: StoredEvent): LoggedAuditEvent | null {
  if (!CHAINED_EVENT_TYPES.has(event.type)) return null;
  return { event_id: event.metadata.event_id, log_seq: event.seq, ...(event.index > 0 ? { log_index: event.index } : {}), data_sha256: dataDigest(event.data) };
}

/**
 * The ledger's read models in the document store (`runledger replay` rebuilds them under the same names). AUDIT_EVENTS
 * is written no more (issue 22): releases before it kept a copy of each run's chained events there, which a data
 * directory they wrote still holds and rl.audit.query still reads (see AuditTrails); a run's trail is now part of its
 * runs-index row (LedgerRow). AUDIT_DECISIONS, each task run's decision audit record, is written no more either: the
 * record is kept in the run's runs-index row (DecisionRecordFields); its documents in an earlier data directory are
 * read as they are (AuditDecisions).
 */
export const AUDIT_EVENTS = 'audit_events';
export const AUDIT_DECISIONS = 'audit_decisions';

/** One chained event as rl.audit.query answers it. */
export interface AuditEventRow extends Record<string, unknown> {
  event_id: string;
  run_id: string;
  root_run_id: string | null;
  type: string;
  chain_seq: number;
  recorded_at: string;
  data: unknown;
}

/** `data` is the log event's own data: a chain entry holds only its digest. */
export function auditEventRow(entry: ChainEntry, data: unknown): AuditEventRow {
  return {
    event_id: entry.event_id, run_id: String(entry.body.run_id), root_run_id: (entry.body.root_run_id as string) ?? null,
    type: entry.body.type, chain_seq: entry.seq, recorded_at: entry.body.recorded_at as string, data,
  };
}

/** The row of a chained event read back from the log, at its place in the chain: what auditEventRow made of it when it was chained. */
export function auditEventRowOf(event: StoredEvent, chainSeq: number): AuditEventRow {
  const md = event.metadata;
  // The fields chainBodyOf records of the event, read from the event itself.
  return { event_id: md.event_id, run_id: md.run_id ?? md.stream_id, root_run_id: md.root_run_id ?? null, type: event.type, chain_seq: chainSeq, recorded_at: md.recorded_at, data: event.data };
}

/**
 * A run's audit trail as releases before issue 22 kept it in `audit_events`: its chained events in chain order, data
 * copied. Still what replay folds to compare the live trails with, and what those releases' rows hold.
 */
export interface RunAuditRow extends Record<string, unknown> {
  run_id: string;
  root_run_id: string | null;
  events: AuditEventRow[];
}

/** A run's row with one more chained event (the same row when it holds the event already): replay folds with this. */
export function withAuditEvent(row: RunAuditRow | null, event: AuditEventRow): RunAuditRow {
  if (row?.events.some((e) => e.event_id === event.event_id)) return row;
  return { run_id: event.run_id, root_run_id: row?.root_run_id ?? event.root_run_id, events: [...(row?.events ?? []), event] };
}
