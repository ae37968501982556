import { Inject, Injectable } from '@nestjs/common';
import { auditSelector } from '@runledger/contracts';
import { EventLog, StoredEvent } from '@runledger/event-log';
import { checkAuditCoverage, CoverageEvent } from '@runledger/governance';
import { OwnedEvent, servedRunEvents } from '@runledger/runs';
import { AppError, Clock, settingNumber } from '@runledger/kernel';
import { CLOCK } from '@runledger/messaging';
import type { ChainEntry } from '@runledger/governance';
import { CHAINED_EVENT_TYPES } from '../domain/audit-chain';
import { contextFromTraceparent, logSubjectTemplate, messagingAttributes, SpanKind, SpanSpec, withSpans } from '@runledger/telemetry';
import { AuditChainWriter } from './audit-chain.writer';
import { AuditDecisions } from './audit-decisions';
import { AuditTrails } from './audit-trails';

/** The durable consumer that feeds the chain and the runs index; its ack floor says how far the ledger has processed the log. */
export const LEDGER_DURABLE = 'audit-ledger';

/** The audit view of the log: the hash chain, its read models, queries, verification and coverage. */
@Injectable()
export class AuditLedgerService {
  constructor(
    private readonly log: EventLog,
    private readonly chain: AuditChainWriter,
    private readonly trails: AuditTrails,
    private readonly decisions: AuditDecisions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Projection step for run events in log order: chain the batch (one append and one signature for all of it: the
   * chain's order is the log's). Returns the batch's chain entries (those of redelivered events too): the runs index
   * folds them into each run's audit trail (issue 22: the run's one row, which also keeps a task run's decision audit
   * record: no second document). Each chained event gets its span in its own request's trace.
   */
  ingest(events: StoredEvent[]): Promise<ChainEntry[]> {
    return withSpans('chain audit batch', events.filter((e) => CHAINED_EVENT_TYPES.has(e.type)).map(chainingSpan), () => this.chain.chain(events));
  }

  /** rl.audit.query: by exactly one selector (auditSelector: null is none), else REQUEST.INVALID saying so. */
  async query(q: { conversation_id?: string | null; run_id?: string | null; root_run_id?: string | null; user_id?: string | null; limit?: number }) {
    const selector = auditSelector(q);
    if (selector.problem !== undefined) throw invalid(selector.problem);
    const limit = q.limit ?? 200;
    const userId = q.user_id ?? undefined;
    // A run's or a tree's events are one run's: a user_id there would filter nothing, so it is no silent no-op either.
    if (userId !== undefined && selector.key !== 'conversation_id') throw invalid('user_id goes only with conversation_id');
    switch (selector.key) {
      case 'conversation_id': {
        const answer = await this.decisions.ofConversation(selector.value, limit, userId);
        if (answer.problem !== undefined) throw invalid(answer.problem);
        return { records: answer.records };
      }
      case 'run_id':
        return { events: await this.trails.ofRun(selector.value, limit) };
      case 'root_run_id':
        return { events: await this.trails.ofTree(selector.value, limit) };
    }
  }

  /** Contract 001 §6: every run has its authz decision, its outcome and its effect audit events. */
  async coverage() {
    const { state } = await this.log.replay<Array<CoverageEvent & OwnedEvent>>((acc, e) => (acc.push({ run_id: e.metadata.stream_id, type: e.type, data: e.data, recorded_at: e.metadata.recorded_at, subject: e.subject, seq: e.seq, index: e.index, metadata: { producer: e.metadata.producer } }), acc), [], { filter: 'rl.log.run.>' });
    // Issue 23: a forged run is no run to cover; it is named instead.
    const { served, forgeries } = servedRunEvents(state);
    // A run with no event for RL_STALE_RUN_MS (default 15 min) is not under way any more: it is reported.
    const covered = checkAuditCoverage(served, { allowInProgress: true, staleAfter: { now: this.clock.now().toISOString(), ms: settingNumber('RL_STALE_RUN_MS') } });
    return { ...covered, ok: covered.ok && !forgeries.length, forged: forgeries };
  }
}

const invalid = (problem: string) => new AppError('REQUEST.INVALID', 'The request is not valid.', [problem]);

/** The span of one event's chaining, in the trace of the request that produced the event. */
function chainingSpan(event: StoredEvent): SpanSpec {
  const template = logSubjectTemplate(event.subject);
  return {
    name: `process ${template}`,
    kind: SpanKind.CONSUMER,
    parent: contextFromTraceparent(event.metadata.traceparent, event.metadata.tracestate),
    attributes: { ...messagingAttributes({ operation: 'process', subject: event.subject, template, consumerGroup: LEDGER_DURABLE }), 'rl.event.type': event.type },
  };
}
