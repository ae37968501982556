/**
 * Every projection and read model, rebuilt from the log by the same folds live processing uses:
 * runs, checkpoints and governed runs (evolveRun), the runs index (evolveRunSummary), conversations
 * (evolveConversation), the audit chain and its read models (nextChainEntry; each run's audit trail, which the
 * runs-index row points to, and its decision audit record, which the row keeps: evolveLedgerRow) and db-write's domain documents (evolveDomainDocuments). Fed one event at a time in log order, as the log
 * holds it (the audit ledger chains and indexes sealed data) and opened (what every other service folds).
 */
import type { RecordedEvent, StoredEvent } from '@runledger/event-log';
import type { ChainEntry } from '@runledger/governance';
import { deterministicUuid } from '@runledger/kernel';
import { evolveRun, initialRunState, RunState } from '../../../libs/runs/src/domain/run-state';
import { auditEventRow, type AuditEventRow, nextChainEntry, RunAuditRow, withAuditEvent } from '../../../services/audit-ledger/src/domain/audit-chain';
import { decisionRecordOf, type DecisionAuditRecord } from '../../../services/audit-ledger/src/domain/audit-decisions';
import { evolveLedgerRow, type LedgerRow } from '../../../services/audit-ledger/src/domain/ledger-row';
import { ConversationState, evolveConversation, initialConversation } from '../../../services/decision/src/conversation/conversation';
import { DomainDocuments, evolveDomainDocuments, initialDomainDocuments } from '../../../services/db-write/src/domain/documents';

type Doc = Record<string, unknown>;

export class Rebuild {
  readonly runs = new Map<string, RunState>();
  /** The runs index's rows: each run's summary and audit trail (LedgerRow). */
  readonly summaries = new Map<string, LedgerRow>();
  /** The run commit being read (its events come together): the runs index folds whole commits (issue 23 ownership). */
  private commit: StoredEvent[] = [];
  readonly conversations = new Map<string, ConversationState>();
  readonly chain: string[] = [];
  /** Each run's audit trail with its events' data, as rl.audit.query answers it (compared with the live trails). */
  readonly auditEvents = new Map<string, RunAuditRow>();
  /** Each chained event's row by its log position (`seq:index`): what a live trail's pointer must point to. */
  readonly chainedAt = new Map<string, AuditEventRow>();
  /** Each task run's decision audit record by run id, from the log: compared with the live ones (kept in runs-index rows since issue 22). */
  readonly decisions = new Map<string, DecisionAuditRecord>();
  readonly documents: DomainDocuments = initialDomainDocuments();
  /** Runs whose recorded conversation context disagrees with the conversation replayed up to that point. */
  readonly contextMismatches: string[] = [];
  /** How many recorded contexts were checked against the replayed conversations. */
  contextChecks = 0;
  private lastChainEntry: ChainEntry | null = null;

  apply(raw: StoredEvent, e: StoredEvent = raw): void {
    if (e.subject.startsWith('rl.log.conversation.')) {
      this.conversations.set(e.metadata.stream_id, evolveConversation(this.conversations.get(e.metadata.stream_id) ?? initialConversation(), e as unknown as RecordedEvent));
      return;
    }
    if (!e.subject.startsWith('rl.log.run.')) return;
    const runId = e.metadata.stream_id;
    const run = evolveRun(this.runs.get(runId) ?? initialRunState(), e as unknown as RecordedEvent);
    this.runs.set(runId, run);
    // As the ledger folds it: the log's events as stored (a sealed field stays sealed), whole commits.
    if (this.commit.length && this.commit[0].seq !== raw.seq) this.foldCommit();
    this.commit.push(raw);
    evolveDomainDocuments(this.documents, e);
    const entry = nextChainEntry(this.lastChainEntry, raw);
    if (entry) {
      this.lastChainEntry = entry;
      this.chain.push(entry.entry_hash);
      const row = auditEventRow(entry, raw.data);
      this.auditEvents.set(row.run_id, withAuditEvent(this.auditEvents.get(row.run_id) ?? null, row));
      this.chainedAt.set(`${raw.seq}:${raw.index}`, row);
      this.summaries.set(row.run_id, evolveLedgerRow(this.summaries.get(row.run_id) ?? null, row.run_id, [], [entry]));
      const record = decisionRecordOf(raw);
      if (record) this.decisions.set(record.run_id, record);
    }
    if (e.type === 'StepCompleted') this.checkContext(run, e);
  }

  /**
   * A task run records the conversation context it decided on (StepCompleted "context"); the conversation
   * replayed up to that moment must name the same latest run (history and pending confirmation may be the
   * caller's own, so only the conversation's position is compared).
   */
  private checkContext(run: RunState, e: StoredEvent): void {
    const d = e.data as { step_id?: string; output?: { based_on_run_id?: string | null } };
    if (d.step_id !== 'context' || !run.run?.user_id || !run.run.conversation_id || !d.output || !('based_on_run_id' in d.output)) return;
    this.contextChecks++;
    const conv = this.conversations.get(deterministicUuid('conversation', run.run.user_id, run.run.conversation_id)) ?? initialConversation();
    const replayed = conv.recent_run_ids[conv.recent_run_ids.length - 1] ?? null;
    if ((d.output.based_on_run_id ?? null) !== replayed) this.contextMismatches.push(`${e.metadata.stream_id}: recorded context follows run ${d.output.based_on_run_id ?? 'none'}, the replayed conversation ${replayed ?? 'none'}`);
  }

  private foldCommit(): void {
    const runId = this.commit[0].metadata.stream_id;
    this.summaries.set(runId, evolveLedgerRow(this.summaries.get(runId) ?? null, runId, this.commit, []));
    this.commit = [];
  }

  /** The rebuilt read models, by the document-store collection each lives in (runs-index rows with their ownership track and audit trail, as the ledger keeps them). */
  collections(): Map<string, Map<string, Doc | null>> {
    if (this.commit.length) this.foldCommit();
    const out = new Map<string, Map<string, Doc | null>>([
      ['runs_index', new Map([...this.summaries].map(([id, s]) => [id, s as unknown as Doc]))],
    ]);
    for (const [name, docs] of this.documents.collections) out.set(name, docs);
    return out;
  }
}
