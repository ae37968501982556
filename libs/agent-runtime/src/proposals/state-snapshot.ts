import { freezeDeep, isPlainObject, toFrozenData, type DeepReadonly } from '../shared/freeze';
import { err, ok, type Result } from '../shared/result';
import { compareInstants, parseRfc3339, type Instant } from '../shared/rfc3339';
import { formatAjvErrors } from '../shared/schema';
import { SNAPSHOT_MAX_AUDIT_ENTRIES, SNAPSHOT_MAX_PENDING_TASKS, snapshotValidator } from './schemas';
import type { AuditLogEntry, PendingTask, StateSnapshot } from './types';

export type SnapshotErrorCode = 'SNAPSHOT.INVALID';

/** What the controller knows; unbounded lists are cut down to the snapshot's bounds. */
export interface StateSnapshotSource {
  readonly campaign: StateSnapshot['campaign'];
  readonly current_task: StateSnapshot['current_task'];
  /** All pending tasks, in the order the controller would do them. */
  readonly pending_tasks: readonly PendingTask[];
  readonly leads_summary: StateSnapshot['leads_summary'];
  /** The audit log for the campaign, in any order. */
  readonly audit_log: readonly AuditLogEntry[];
  readonly available_artifacts?: StateSnapshot['available_artifacts'];
}

export interface BuiltSnapshot {
  readonly snapshot: DeepReadonly<StateSnapshot>;
  /** How much was left out, so the controller can tell the agent there is more. */
  readonly omitted: { readonly pendingTasks: number; readonly auditEntries: number };
}

/** Checks a snapshot against state-snapshot.schema.json. */
export function validateStateSnapshot(value: unknown): Result<StateSnapshot, SnapshotErrorCode> {
  const validate = snapshotValidator();
  if (validate(value)) return ok(value as StateSnapshot);
  const errors = formatAjvErrors(validate.errors);
  return err('SNAPSHOT.INVALID', `invalid state snapshot: ${errors.join('; ')}`, errors);
}

/**
 * Builds the bounded snapshot an agent sees for one cycle (FR-050): the first 10
 * pending tasks in the controller's order and the 5 most recent audit entries,
 * newest first (equal timestamps: the later-appended entry counts as newer).
 * The result is validated and frozen; the source is not modified.
 */
export function buildStateSnapshot(source: StateSnapshotSource): Result<BuiltSnapshot, SnapshotErrorCode> {
  if (!isPlainObject(source) || !Array.isArray(source.pending_tasks) || !Array.isArray(source.audit_log)) {
    return err('SNAPSHOT.INVALID', 'snapshot source needs pending_tasks and audit_log arrays');
  }
  // Ordering by time needs every timestamp, not only the five that survive.
  const instants = source.audit_log.map((e) => parseRfc3339((e as Partial<AuditLogEntry>)?.timestamp));
  const unparseable = instants.flatMap((at, i) => (at === null ? [`/audit_log/${i}/timestamp is not a date-time`] : []));
  if (unparseable.length > 0) return err('SNAPSHOT.INVALID', `invalid state snapshot source: ${unparseable.join('; ')}`, unparseable);

  // Full precision: microsecond or nanosecond timestamps order correctly, not only to the millisecond.
  const recent = source.audit_log
    .map((entry, index) => ({ entry, index, at: instants[index] as Instant }))
    .sort((a, b) => compareInstants(b.at, a.at) || b.index - a.index)
    .slice(0, SNAPSHOT_MAX_AUDIT_ENTRIES)
    .map((x) => x.entry);

  let candidate: unknown;
  try {
    candidate = toFrozenData({
      campaign: source.campaign,
      current_task: source.current_task,
      pending_tasks: source.pending_tasks.slice(0, SNAPSHOT_MAX_PENDING_TASKS),
      leads_summary: source.leads_summary,
      recent_audit_log: recent,
      ...(source.available_artifacts === undefined ? {} : { available_artifacts: source.available_artifacts }),
    });
  } catch (cause) {
    return err('SNAPSHOT.INVALID', `snapshot source is not JSON data: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
  const valid = validateStateSnapshot(candidate);
  if (!valid.ok) return valid;
  return ok(
    freezeDeep({
      snapshot: valid.value as DeepReadonly<StateSnapshot>,
      omitted: {
        pendingTasks: Math.max(0, source.pending_tasks.length - SNAPSHOT_MAX_PENDING_TASKS),
        auditEntries: Math.max(0, source.audit_log.length - SNAPSHOT_MAX_AUDIT_ENTRIES),
      },
    }),
  );
}
