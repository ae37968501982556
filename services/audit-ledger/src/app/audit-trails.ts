import { Inject, Injectable } from '@nestjs/common';
import type { DocumentStore } from '@runledger/document-store';
import { EventLog, type StoredEvent, tryStoredEvents, UnreadableMessageError } from '@runledger/event-log';
import { DOCUMENT_STORE } from '@runledger/messaging';
import { AUDIT_EVENTS, auditEventRowOf, type AuditEventRow, type RunAuditRow } from '../domain/audit-chain';
import type { AuditPointer, LedgerRow } from '../domain/ledger-row';
import { RunsIndexService } from './runs-index.service';

/** A trail entry before its event is read: a row of an earlier release (data copied) or a pointer into the log. */
type TrailItem = { row: AuditEventRow } | { at: AuditPointer };

const chainSeqOf = (item: TrailItem) => ('row' in item ? item.row.chain_seq : item.at[0]);
const eventIdOf = (item: TrailItem) => ('row' in item ? item.row.event_id : item.at[3]);

/**
 * Runs' audit trails as rl.audit.query answers them (issue 22): a run's row in the runs index says where its chained
 * events are (LedgerRow.audit_trail), the log holds them, so only the page answered is read from it (one direct get
 * per commit). A data directory written before issue 22 also holds `audit_events` rows with the events copied: read
 * as they are, never written; a run open across the upgrade has part of its trail there and the rest in its row.
 */
@Injectable()
export class AuditTrails {
  constructor(
    private readonly index: RunsIndexService,
    private readonly log: EventLog,
    @Inject(DOCUMENT_STORE) private readonly store: DocumentStore,
  ) {}

  private get earlier() {
    return this.store.collection<RunAuditRow>(AUDIT_EVENTS);
  }

  /** The chained events of run `runId`, in chain order, the first `limit`. */
  async ofRun(runId: string, limit: number): Promise<AuditEventRow[]> {
    const [row, earlier] = await Promise.all([this.index.row(runId), this.earlier.get(runId)]);
    return this.page([trailOf(earlier?.value ?? null, row)], limit);
  }

  /** The chained events of every run of tree `rootRunId` (as the run's trail first named it), in chain order, the first `limit`. */
  async ofTree(rootRunId: string, limit: number): Promise<AuditEventRow[]> {
    const [rows, earlier] = await Promise.all([this.index.rowsOfTree(rootRunId), this.earlier.find({ root_run_id: rootRunId })]);
    const rowOf = new Map(rows.map((r) => [r.run_id, r]));
    // A run open across the upgrade: its earlier row names the tree, and its trail goes on in its runs-index row.
    const rest = await Promise.all(earlier.filter((d) => !rowOf.has(d.id)).map((d) => this.index.row(d.id)));
    for (const r of rest) if (r?.audit_trail) rowOf.set(r.run_id, r);
    const earlierOf = new Map(earlier.map((d) => [d.id, d.value]));
    const ids = new Set([...earlierOf.keys(), ...rowOf.keys()]);
    return this.page([...ids].map((id) => trailOf(earlierOf.get(id) ?? null, rowOf.get(id) ?? null)), limit);
  }

  /** The first `limit` events of the trails, in chain order; only those are read from the log. */
  private async page(trails: TrailItem[][], limit: number): Promise<AuditEventRow[]> {
    const items = trails.flat().sort((a, b) => chainSeqOf(a) - chainSeqOf(b)).slice(0, limit);
    const commits = await this.commits([...new Set(items.flatMap((i) => ('at' in i ? [i.at[1]] : [])))]);
    return items.map((item) => {
      if ('row' in item) return item.row;
      const [chainSeq, seq, index] = item.at;
      const event = commits.get(seq)?.find((e) => e.index === index);
      if (!event) throw new UnreadableMessageError(seq);
      return auditEventRowOf(event, chainSeq);
    });
  }

  /** The run commits at `seqs`, as the log stores them (sealed data sealed: the answer is opened as a whole). */
  private async commits(seqs: number[]): Promise<Map<number, StoredEvent[]>> {
    const out = new Map<number, StoredEvent[]>();
    await Promise.all(seqs.map((seq) => this.log.messages('rl.log.run.>', seq, seq, (m) => void out.set(seq, tryStoredEvents(m)))));
    return out;
  }
}

/** One run's trail: its earlier row's events, then its pointers, each event once (the first kept, as the earlier row kept it). */
function trailOf(earlier: RunAuditRow | null, row: LedgerRow | null): TrailItem[] {
  const items: TrailItem[] = [...(earlier?.events ?? []).map((r) => ({ row: r })), ...(row?.audit_trail ?? []).map((at) => ({ at }))];
  const seen = new Set<string>();
  return items.filter((i) => !seen.has(eventIdOf(i)) && !!seen.add(eventIdOf(i)));
}
