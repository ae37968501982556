/** What identifies an append's commit in the log: the msgID of the version it claims, and its events' ids. */
import { deterministicUuid } from '@runledger/kernel';
import type { EventEnvelope, StoredEvent } from './envelope';

/**
 * The msgID of an append on a stated version: one per (aggregate, version), so the server's duplicate check, made
 * when a message is stored, lets one commit per version through. The expected-sequence check alone does not hold
 * in a cluster before nats-server 2.11: the stream leader checks it against what is stored before the raft proposal,
 * so two appends on the same version in flight together both pass and both are stored (a run with two terminal
 * events, seen under a NATS node kill). Applied in order, the second is a duplicate and its writer decides again.
 */
export function versionSlotId(subject: string, version: number): string {
  return deterministicUuid('append', subject, version);
}

/** Whether the log's commit holds exactly these events (same ids, in order): this command's commit, not another's. */
export function sameCommit(stored: readonly StoredEvent[], envelopes: readonly EventEnvelope[]): boolean {
  return stored.length === envelopes.length && stored.every((e, i) => e.metadata.event_id === envelopes[i].metadata.event_id);
}
