import type { StoredEvent } from '@runledger/event-log';
import { ChainEntry, chainEntry, ChainEvent } from '@runledger/governance';

/** Events that enter the tamper-evident chain: authorisations, outcomes and every audited effect. */
export const CHAINED_EVENT_TYPES: ReadonlySet<string> = new Set([
  'RunCreated', 'AuthzDecided', 'RunCompleted', 'RunFailed', 'RunDenied', 'RunCancelled',
  'ToolCallAudited', 'DbWriteAudited', 'PromotionAudited', 'PromotionRefused',
  'ExportAuthorized', 'ExportAssembled', 'ExportFinalized', 'DecisionRecorded',
]);

/** What the chain records of one log event: the whole event, its place in the log and its run tree. */
export function chainBodyOf(event: StoredEvent): ChainEvent {
  return {
    event_id: event.metadata.event_id,
    type: event.type,
    run_id: event.metadata.run_id ?? event.metadata.stream_id,
    root_run_id: event.metadata.root_run_id ?? null,
    parent_run_id: event.metadata.parent_run_id ?? null,
    case_id: event.metadata.case_id ?? null,
    producer: event.metadata.producer,
    recorded_at: event.metadata.recorded_at,
    log_seq: event.seq,
    data: event.data,
  };
}

/**
 * The chain as a pure fold over run events in log order: what the ledger writes live, and what an
 * operator recomputes from a replay to show the chain is exactly the log's audit events.
 */
export function evolveChain(chain: ChainEntry[], event: StoredEvent): ChainEntry[] {
  if (!CHAINED_EVENT_TYPES.has(event.type)) return chain;
  if (chain.some((e) => e.event_id === event.metadata.event_id)) return chain;
  const prev = chain[chain.length - 1] ?? null;
  return [...chain, chainEntry(prev, chainBodyOf(event), (prev?.seq ?? 0) + 1)];
}
