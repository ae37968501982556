import type { StoredEvent } from '@runledger/event-log';
import { canonicalJson } from '@runledger/governance';
import { truncateChars } from '@runledger/kernel';

/**
 * A task-assistant decision's contract-000 audit record, as its DecisionRecorded event holds it (`audit_record`, its
 * free text sealed as the log stores it): what rl.audit.query by conversation_id answers.
 */
export interface DecisionAuditRecord extends Record<string, unknown> {
  run_id: string;
  conversation_id: string;
  timestamp: string;
}

/**
 * Where a run's audit record is kept (issue 22, fewer messages): in the run's runs-index row, written with it. Releases
 * before kept each in `audit_decisions` (one more put per request), keyed by its run id: read as they are, never written.
 */
export interface DecisionRecordFields {
  audit_record?: DecisionAuditRecord;
  /** The record's conversation_id, at the row's top level: rl.audit.query by conversation_id finds rows by it. */
  audit_conversation_id?: string;
}

/** The audit record a DecisionRecorded event holds, or null for any other event. */
export function decisionRecordOf(event: Pick<StoredEvent, 'type' | 'data'>): DecisionAuditRecord | null {
  if (event.type !== 'DecisionRecorded') return null;
  return (event.data as { audit_record?: DecisionAuditRecord } | null)?.audit_record ?? null;
}

/** The row with the audit records of a run's DecisionRecorded events (the same row when it holds them already: a redelivery). */
export function withDecisionRecords<R extends DecisionRecordFields>(row: R, events: readonly Pick<StoredEvent, 'type' | 'data'>[]): R {
  let next = row;
  for (const event of events) {
    const record = decisionRecordOf(event);
    if (!record || (next.audit_record && canonicalJson(next.audit_record) === canonicalJson(record))) continue;
    next = { ...next, audit_record: record, audit_conversation_id: record.conversation_id };
  }
  return next;
}

/** Each run's record once, by run id: an earlier `audit_decisions` document, or the row's (a run recorded in both places). */
export function decisionRecordsByRun(earlier: readonly DecisionAuditRecord[], rows: readonly DecisionRecordFields[]): Map<string, DecisionAuditRecord> {
  const byRun = new Map(earlier.map((r) => [r.run_id, r]));
  for (const row of rows) if (row.audit_record) byRun.set(row.audit_record.run_id, row.audit_record);
  return byRun;
}

/** At most this many of the users holding records in a conversation are named in a refusal. */
const NAMED_USERS = 5;

/**
 * The records of one conversation as rl.audit.query answers them: one user's, each run's record once, in timestamp
 * order (equal timestamps in run id order, as a find of `audit_decisions` returned them), the last `limit`. A
 * conversation id is the caller's to choose, so two users (of one trust domain, or two doors' users) may share one;
 * their records are never answered mixed: with `userId` only that user's ("" the requests refused without a user),
 * without it a conversation whose records name more than one user is refused (`problem`), naming them.
 */
export function conversationRecords(
  earlier: readonly DecisionAuditRecord[], rows: readonly DecisionRecordFields[], limit: number, userId?: string,
): { records: DecisionAuditRecord[]; problem?: undefined } | { records?: undefined; problem: string } {
  const all = [...decisionRecordsByRun(earlier, rows).values()];
  const users = [...new Set(all.map(userOf))].sort();
  if (userId === undefined && users.length > 1) {
    const named = users.slice(0, NAMED_USERS).map((u) => (u ? JSON.stringify(truncateChars(u, 64, { ellipsis: true })) : 'no user'));
    return { problem: `conversation_id ${all[0].conversation_id} holds the decision audit records of ${users.length} users (${named.join(', ')}${users.length > NAMED_USERS ? ', …' : ''}): name one with user_id ("" for requests refused without a user)` };
  }
  const records = all
    .filter((r) => userId === undefined || userOf(r) === userId)
    .sort((a, b) => a.timestamp.localeCompare(b.timestamp) || (a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : 0))
    .slice(-limit);
  return { records };
}

/** A record's user as its run recorded it ("" for a request refused without one). */
const userOf = (r: DecisionAuditRecord): string => (typeof r.user_id === 'string' ? r.user_id : '');
