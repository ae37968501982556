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

describe('buildStateSnapshot: every RFC 3339 date-time (Issue 8)', () => {
  const at = (action: string, timestamp: string): AuditLogEntry => ({ action_type: action, timestamp, success: true });

  it('FR-050: every form the schema accepts is accepted: lowercase t/z, a space, ±HH, ±HHMM offsets, a leap second', () => {
    const forms = ['2026-01-06t10:00:00z', '2026-01-06 10:00:00Z', '2026-01-06T11:00:00+01', '2026-01-06T11:00:00+0100', '2016-12-31T23:59:60Z', '2016-12-31T15:59:60-08:00'];
    for (const form of forms) {
      expect(validateStateSnapshot({ ...example, recent_audit_log: [at('x', form)] }).ok).toBe(true);
      const built = buildStateSnapshot(source({ audit_log: [at('x', form)] }));
      expect(built.ok).toBe(true);
    }
  });

  it('FR-050: entries are ordered by full precision, beyond milliseconds, and a leap second sorts inside its day', () => {
    const log = [
      at('micro-1', '2026-01-06T10:00:00.000001Z'),
      at('micro-3', '2026-01-06T10:00:00.000003Z'),
      at('micro-2', '2026-01-06T10:00:00.0000020Z'),
      at('leap', '2016-12-31T23:59:60.5Z'),
      at('before-leap', '2016-12-31T23:59:59.999Z'),
      at('after-leap', '2017-01-01T00:00:00Z'),
    ];
    const built = buildStateSnapshot(source({ audit_log: log }));
    if (!built.ok) throw new Error(built.message);
    expect(built.value.snapshot.recent_audit_log.map((e) => e.action_type)).toEqual(['micro-3', 'micro-2', 'micro-1', 'after-leap', 'leap']);
  });
});
