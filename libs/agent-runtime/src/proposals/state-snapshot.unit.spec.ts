import { exampleSnapshot } from './contract-examples.unit-support';
import { buildStateSnapshot, validateStateSnapshot, type StateSnapshotSource } from './state-snapshot';
import type { AuditLogEntry } from './types';

const example = exampleSnapshot();

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const audit = (minute: number, action = `a${minute}`): AuditLogEntry => ({
  action_type: action,
  timestamp: `2026-01-06T10:${String(minute).padStart(2, '0')}:00Z`,
  success: true,
});

function source(overrides: Partial<StateSnapshotSource> = {}): StateSnapshotSource {
  const { recent_audit_log, ...rest } = example;
  return { ...rest, audit_log: recent_audit_log, ...overrides };
}

describe('buildStateSnapshot', () => {
  it('FR-050: the contract example snapshot is valid', () => {
    expect(validateStateSnapshot(example).ok).toBe(true);
    const built = buildStateSnapshot(source());
    expect(built.ok && built.value.snapshot).toEqual(example);
  });

  it('FR-050: pending tasks are bounded to the first 10, in the order given', () => {
    const tasks = Array.from({ length: 13 }, (_, i) => ({ id: uuid(i), description: `task ${i}` }));
    const built = buildStateSnapshot(source({ pending_tasks: tasks }));
    if (!built.ok) throw new Error(built.message);
    expect(built.value.snapshot.pending_tasks.map((t) => t.description)).toEqual(tasks.slice(0, 10).map((t) => t.description));
    expect(built.value.omitted.pendingTasks).toBe(3);
  });

  it('FR-050: the audit log keeps the 5 most recent entries by timestamp, newest first, whatever the input order', () => {
    const log = [audit(3), audit(9), audit(1), audit(7), audit(5), audit(8), audit(2)];
    const built = buildStateSnapshot(source({ audit_log: log }));
    if (!built.ok) throw new Error(built.message);
    expect(built.value.snapshot.recent_audit_log.map((e) => e.action_type)).toEqual(['a9', 'a8', 'a7', 'a5', 'a3']);
    expect(built.value.omitted.auditEntries).toBe(2);
  });

  it('FR-050: time zones are compared as instants, and equal instants keep the later-appended entry first', () => {
    const log = [
      { ...audit(0, 'utc-10:30'), timestamp: '2026-01-06T10:30:00Z' },
      { ...audit(0, 'paris-11:00'), timestamp: '2026-01-06T11:00:00+01:00' },
      { ...audit(0, 'again-10:30'), timestamp: '2026-01-06T10:30:00Z' },
    ];
    const built = buildStateSnapshot(source({ audit_log: log }));
    expect(built.ok && built.value.snapshot.recent_audit_log.map((e) => e.action_type)).toEqual(['again-10:30', 'utc-10:30', 'paris-11:00']);
  });

  it('FR-050: the snapshot is frozen and the source is not', () => {
    const src = source();
    const built = buildStateSnapshot(src);
    expect(built.ok && Object.isFrozen(built.value.snapshot.pending_tasks)).toBe(true);
    expect(Object.isFrozen(src.pending_tasks)).toBe(false);
  });

  it('FR-050: invalid data is refused with its location, including timestamps that could not be ordered', () => {
    const badLead = buildStateSnapshot(source({ leads_summary: { ...example.leads_summary, contacted: -1 } }));
    expect(!badLead.ok && badLead.errors).toEqual(['/leads_summary/contacted must be >= 0']);
    const badTime = buildStateSnapshot(source({ audit_log: [audit(1), { ...audit(2), timestamp: 'yesterday' }] }));
    expect(!badTime.ok && badTime.errors).toEqual(['/audit_log/1/timestamp is not a date-time']);
    const badId = buildStateSnapshot(source({ pending_tasks: [{ id: 'task-1', description: 'x' }] }));
    expect(!badId.ok && badId.errors).toEqual(['/pending_tasks/0/id must match format "uuid"']);
  });
});
