/**
 * The audit trails (what rl.audit.query answers per run) compared with the ones rebuilt from the log, reported as the
 * `audit_events` model. Since issue 22 a live trail is its runs-index row's pointers into the log (LedgerRow
 * audit_trail) after, for a data directory written before it, its `audit_events` row (events copied, no longer
 * written). Each pointer must name the chained event the rebuild found at that log position, at its chain place.
 */
import { type AuditEventRow, type RunAuditRow, withAuditEvent } from '../../../services/audit-ledger/src/domain/audit-chain';
import { type DecisionAuditRecord, decisionRecordsByRun } from '../../../services/audit-ledger/src/domain/audit-decisions';
import { indexedRunOf, type LedgerRow } from '../../../services/audit-ledger/src/domain/ledger-row';
import { compareDocs, type ModelReport } from './compare';
import type { Rebuild } from './rebuild';

type Doc = Record<string, unknown>;

/** The live trail of every run that has one: its earlier row's events, then what its pointers point to. */
function liveTrails(rebuild: Rebuild, index: Map<string, Doc>, earlier: Map<string, Doc>, horizon: number): { trails: Map<string, Doc>; moved: Set<string> } {
  const trails = new Map<string, Doc>();
  const moved = new Set<string>();
  const rowOf = (id: string) => index.get(id) as unknown as LedgerRow | undefined;
  const ids = new Set([...earlier.keys(), ...[...index.keys()].filter((id) => rowOf(id)?.audit_trail)]);
  for (const id of ids) {
    const before = (earlier.get(id) as RunAuditRow | undefined) ?? null;
    const row = rowOf(id);
    let trail = before;
    for (const [chainSeq, seq, index_, eventId] of row?.audit_trail ?? []) {
      if (seq > horizon) moved.add(id);
      const event = rebuild.chainedAt.get(`${seq}:${index_}`);
      trail = withAuditEvent(trail, event ? { ...event, chain_seq: chainSeq } : ({ event_id: eventId, chain_seq: chainSeq, missing: `no chained event at log position ${seq}:${index_}` } as unknown as AuditEventRow));
    }
    if (trail) trails.set(id, { run_id: id, root_run_id: before?.root_run_id ?? row?.audit_root_run_id ?? null, events: trail.events });
  }
  return { trails, moved };
}

/** Trails compared; a run whose trail points past the replay's horizon is not compared (the log moved on). */
export function compareAuditTrails(rebuild: Rebuild, liveIndex: Map<string, Doc>, liveEarlier: Map<string, Doc>, horizon: number): ModelReport {
  const { trails, moved } = liveTrails(rebuild, liveIndex, liveEarlier, horizon);
  const rebuilt = new Map([...rebuild.auditEvents].map(([id, row]) => [id, JSON.parse(JSON.stringify(row)) as Doc]));
  return compareDocs('audit_events', rebuilt, trails, (doc) => moved.has(String(doc.run_id)));
}

/**
 * The decision audit records (what rl.audit.query by conversation_id answers), reported as the `audit_decisions`
 * model: since issue 22 a live record is kept in its run's runs-index row, after, for a data directory written before,
 * its `audit_decisions` document (no longer written). A record of a row folded past the replay's horizon is not compared.
 */
export function compareDecisionRecords(rebuild: Rebuild, liveIndex: Map<string, Doc>, liveEarlier: Map<string, Doc>, horizon: number): ModelReport {
  const rows = [...liveIndex.values()] as unknown as LedgerRow[];
  const live = decisionRecordsByRun([...liveEarlier.values()] as DecisionAuditRecord[], rows);
  const moved = new Set(rows.filter((r) => r.audit_record && Number(r.last_seq) > horizon).map((r) => r.audit_record!.run_id));
  const rebuilt = new Map([...rebuild.decisions].map(([id, record]) => [id, JSON.parse(JSON.stringify(record)) as Doc]));
  return compareDocs('audit_decisions', rebuilt, live as Map<string, Doc>, (doc) => moved.has(String(doc.run_id)));
}

/** Runs-index rows without their audit trails and records (compared as `audit_events` and `audit_decisions`), as the runs index compares them. */
export function withoutTrails(docs: Map<string, Doc>): Map<string, Doc> {
  return new Map([...docs].map(([id, doc]) => [id, indexedRunOf(doc as unknown as LedgerRow) as unknown as Doc]));
}
