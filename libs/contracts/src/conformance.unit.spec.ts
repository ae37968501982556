/**
 * Drift guard between the wire contracts (generated from proto-contracts/) and the hand-written types of the
 * pure domain libs, which do not depend on the wire package. These are compile-time checks: `npm test`'s type
 * check fails the moment a schema and a domain type disagree; the runtime assertions only keep jest honest.
 */
import type { EventEnvelope, EventMetadata } from '@runledger/event-log';
import type { ArtifactRef as DomainArtifactRef, ChainCheckpoint } from '@runledger/governance';
import type * as TA from '@runledger/task-assistant';
import type { ArtifactRef, AuditCheckpoint, DecisionAuditRecord, DecisionContext, HistoryMessage, LogEvent, LogEventMetadata, PendingConfirmation, UserIntentReply, AgentDecisionReply } from './generated';

/** Compiles only when A and B are mutually assignable. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assignable<From, To> = [From] extends [To] ? true : false;
const check = <T extends true>(): T => true as T;

describe('wire contracts ↔ domain types', () => {
  it('the log envelope written by libs/event-log is the LogEvent of proto-contracts', () => {
    check<Assignable<EventEnvelope, LogEvent>>();
    check<Assignable<EventMetadata, LogEventMetadata>>();
    expect(true).toBe(true);
  });

  it('artifact_ref: the governance domain type and the contract schema agree', () => {
    check<Assignable<DomainArtifactRef, ArtifactRef>>();
    check<Assignable<ArtifactRef, DomainArtifactRef>>();
    expect(true).toBe(true);
  });

  it('contract 000 shapes: the task-assistant domain types and the wire schemas agree', () => {
    check<Assignable<TA.HistoryMessage, HistoryMessage>>();
    check<Same<TA.PendingConfirmation, PendingConfirmation>>();
    check<Assignable<TA.DecisionContext, Omit<DecisionContext, 'request_id'>>>();
    check<Assignable<TA.UserIntent, UserIntentReply>>();
    check<Assignable<TA.AgentDecision & { run_id: string }, AgentDecisionReply>>();
    check<Assignable<TA.AuditRecord & { run_id: string }, DecisionAuditRecord>>();
    expect(true).toBe(true);
  });

  it('Issue 9 anchored chain: the signed checkpoint of the governance domain is the AuditCheckpoint contract', () => {
    check<Same<ChainCheckpoint, AuditCheckpoint>>();
    expect(true).toBe(true);
  });
});
