/**
 * Drift guard between the wire contracts (generated from proto-contracts/) and the hand-written types of the
 * pure domain libs, which do not depend on the wire package. These are compile-time checks: `npm test`'s type
 * check fails the moment a schema and a domain type disagree; the runtime assertions only keep jest honest.
 */
import type { EventEnvelope } from '@runledger/event-log';
import type * as TA from '@runledger/task-assistant';
import type { DecisionAuditRecord, DecisionContext, HistoryMessage, LogEvent, UserIntentReply, AgentDecisionReply } from './generated';

type Assignable<From, To> = [From] extends [To] ? true : false;
const check = <T extends true>(): T => true as T;

describe('wire contracts ↔ domain types', () => {
  it('the log envelope written by libs/event-log is the LogEvent of proto-contracts', () => {
    // Its metadata is the generated LogEventMetadata itself (libs/event-log envelope.ts); the envelope around it must fit.
    check<Assignable<EventEnvelope, LogEvent>>();
    expect(true).toBe(true);
  });

  it('contract 000 shapes: the task-assistant domain types and the wire schemas agree', () => {
    check<Assignable<TA.HistoryMessage, HistoryMessage>>();
    check<Assignable<TA.DecisionContext, Omit<DecisionContext, 'request_id'>>>();
    check<Assignable<TA.UserIntent, UserIntentReply>>();
    check<Assignable<TA.AgentDecision & { run_id: string }, AgentDecisionReply>>();
    check<Assignable<TA.AuditRecord & { run_id: string }, DecisionAuditRecord>>();
    expect(true).toBe(true);
  });

});
