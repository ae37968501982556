import { REQUIRED_AUDIT_EVENTS, RUN_KINDS, TERMINAL_EVENT_TYPES, type RunKind } from '../lifecycle/run-lifecycle';

/** A log event as the coverage check needs it; other fields are ignored. */
export interface CoverageEvent {
  run_id: string;
  type: string;
  data?: unknown;
  /** When the log recorded it (ISO); needed only to tell a stale run from one still under way. */
  recorded_at?: string;
}

/** One run that lacks a required audit record; `missing` names what (usually an event type). */
export interface CoverageViolation {
  run_id: string;
  missing: string;
}

export interface CoverageReport {
  /** No violations. Runs listed in `in_progress` do not make the report fail. */
  ok: boolean;
  runs_checked: number;
  violations: CoverageViolation[];
  /** Runs with no terminal event yet (only with `allowInProgress`; otherwise those are violations). */
  in_progress: string[];
}

export interface CoverageOptions {
  /** Report runs without a terminal event as in progress instead of as violations. */
  allowInProgress?: boolean;
  /**
   * With `allowInProgress`: a run whose last event is older than `ms` before `now` is no longer "under way"
   * but stale, and its missing terminal outcome is a violation (a run left open must not hide forever).
   */
  staleAfter?: { now: string; ms: number };
}

/**
 * §6 required audit coverage over log events in log order. For every run:
 * - one `RunCreated` (with `data.run_kind` in agent|tool_gateway|db_write|promotion|export), first;
 * - `AuthzDecided` (`data.decision` allow|deny) as the first event after it;
 * - exactly one terminal event among RunCompleted, RunFailed, RunDenied, RunCancelled, and
 *   RunDenied exactly when the decision was deny;
 * - when allowed: tool_gateway → ToolCallAudited; db_write → DbWriteAudited; promotion →
 *   PromotionAudited; export → ExportAuthorized, ExportAssembled, ExportFinalized.
 * With `allowInProgress`, a run without a terminal event is listed in `in_progress` and its
 * per-kind audit events are not demanded yet (the privileged action may still be under way).
 */
export function checkAuditCoverage(events: readonly CoverageEvent[], options: CoverageOptions = {}): CoverageReport {
  const byRun = new Map<string, CoverageEvent[]>();
  for (const event of events) {
    const list = byRun.get(event.run_id);
    if (list) list.push(event);
    else byRun.set(event.run_id, [event]);
  }
  const violations: CoverageViolation[] = [];
  const inProgress: string[] = [];
  const staleBefore = options.staleAfter ? Date.parse(options.staleAfter.now) - options.staleAfter.ms : undefined;
  for (const [runId, runEvents] of byRun) {
    const result = checkRun(runEvents, options);
    violations.push(...result.missing.map((missing) => ({ run_id: runId, missing })));
    if (!result.inProgress) continue;
    const lastAt = runEvents[runEvents.length - 1]?.recorded_at;
    if (staleBefore !== undefined && lastAt !== undefined && Date.parse(lastAt) < staleBefore) {
      violations.push({ run_id: runId, missing: `terminal outcome (stale: no event since ${lastAt})` });
    } else inProgress.push(runId);
  }
  return { ok: violations.length === 0, runs_checked: byRun.size, violations, in_progress: inProgress };
}

function checkRun(events: readonly CoverageEvent[], options: CoverageOptions): { missing: string[]; inProgress: boolean } {
  const missing: string[] = [];
  const createdCount = events.filter((e) => e.type === 'RunCreated').length;
  if (createdCount === 0) return { missing: ['RunCreated'], inProgress: false };
  if (createdCount > 1) missing.push(`exactly one RunCreated (found ${createdCount})`);
  if (events[0].type !== 'RunCreated') missing.push('RunCreated as the first event');

  const createdAt = events.findIndex((e) => e.type === 'RunCreated');
  const runKind = field(events[createdAt].data, 'run_kind');
  const kind = (RUN_KINDS as readonly unknown[]).includes(runKind) ? (runKind as RunKind) : undefined;
  if (!kind) missing.push('RunCreated with a valid run_kind');

  const after = events.slice(createdAt + 1);
  const authz = after.find((e) => e.type === 'AuthzDecided');
  const decision = authz ? field(authz.data, 'decision') : undefined;
  if (!authz) missing.push('AuthzDecided');
  else if (after[0] !== authz) missing.push('AuthzDecided as the first event after RunCreated');
  else if (decision !== 'allow' && decision !== 'deny') missing.push('AuthzDecided with decision allow or deny');

  const terminals = after.filter((e) => (TERMINAL_EVENT_TYPES as readonly string[]).includes(e.type));
  const inProgress = terminals.length === 0 && options.allowInProgress === true;
  if (terminals.length === 0 && !inProgress) missing.push('terminal event');
  if (terminals.length > 1) missing.push(`exactly one terminal event (found ${terminals.length}: ${terminals.map((e) => e.type).join(', ')})`);
  const denied = terminals.some((e) => e.type === 'RunDenied');
  if (decision === 'deny' && terminals.length > 0 && !denied) missing.push('RunDenied after a deny decision');
  if (decision === 'allow' && denied) missing.push('a deny decision before RunDenied');

  if (decision === 'allow' && kind && !inProgress) {
    for (const type of REQUIRED_AUDIT_EVENTS[kind]) {
      if (!after.some((e) => e.type === type)) missing.push(type);
    }
  }
  return { missing, inProgress };
}

function field(data: unknown, key: string): unknown {
  return typeof data === 'object' && data !== null ? (data as Record<string, unknown>)[key] : undefined;
}
