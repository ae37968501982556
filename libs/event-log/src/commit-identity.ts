/** What identifies an append's commit in the log: the msgID of the version it claims, its events' ids, and the version it was appended on. */
import { deterministicUuid } from '@runledger/kernel';
import type { StoredMessage } from './direct-reads';
import type { EventEnvelope, StoredEvent } from './envelope';
import { UnreadableMessageError } from './log-errors';
import { serverCopyProblem } from './stored-event';

/** The header nats-server stores with a message published with `expect.lastSubjectSequence`. */
const EXPECTED_LAST_SUBJECT_SEQ = 'Nats-Expected-Last-Subject-Sequence';

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

/**
 * A commit keeps the version it was appended on (the server stores the expected-sequence header): one that names
 * another message of its subject than the one read before it (`previous`, 0 before the first) says that message is
 * stored but not handed out (damaged on disk: nats-server steps over it), so the read is LOG.UNREADABLE naming it,
 * never an aggregate missing its creation record or a commit. A commit that stated no version, and the server's stored
 * copy of another message (whose headers are that message's), say nothing here.
 */
export function requireAppendedOn(m: StoredMessage, previous: number): void {
  const stated = m.headers?.get(EXPECTED_LAST_SUBJECT_SEQ); // "" when the append stated no version
  const appendedOn = stated ? Number(stated) : Number.NaN;
  if (Number.isSafeInteger(appendedOn) && appendedOn !== previous && !serverCopyProblem(m)) throw new UnreadableMessageError(appendedOn);
}
