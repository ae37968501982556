import type { DeadLetter } from '@runledger/contracts';
import type { StoredEvent } from '@runledger/event-log';
import { ERROR_CODES, ErrorCode } from '@runledger/kernel';

/** Commands can be re-published; a run event re-published would enter its run a second time. */
export const RETRYABLE_SUBJECT_PREFIX = 'rl.log.inbox.';
const RUN_SUBJECT_PREFIX = 'rl.log.run.';

/**
 * Why a retry of a dead letter can never succeed, or null when it can: a run event is not re-published (it would enter
 * its run twice), and a command refused for good (a non-retryable error code: DATA.ERASED, REQUEST.INVALID …) would be
 * refused the same way again. An unknown code is taken as retryable (the taxonomy says nothing against it).
 */
export function notRetryableBecause(subject: string, errorCode: string): string | null {
  const known = Object.hasOwn(ERROR_CODES, errorCode) ? ERROR_CODES[errorCode as ErrorCode] : undefined;
  // What the message is comes first: one no writer made is no run event either (probe: it was said to be one).
  if (errorCode === 'LOG.FOREIGN_MESSAGE') return `no Runledger writer made it (${known?.message ?? errorCode}): it is never re-published.`;
  if (!subject.startsWith(RETRYABLE_SUBJECT_PREFIX)) return `${subject} is a run event, not a command: re-publishing it would record it twice. Fix the consumer and let it redeliver.`;
  if (known && !known.retryable) return `it was refused for good (${errorCode}: ${known.message}): a retry would be refused the same way.`;
  return null;
}

/** The run a dead-lettered message belongs to: its events' run id, else the run its subject names. */
export function runIdOf(subject: string, events: ReadonlyArray<Pick<StoredEvent, 'data' | 'metadata'>>): string | null {
  for (const e of events) {
    const d = (e.data ?? {}) as { run_id?: unknown; spec?: { run_id?: unknown } };
    const id = e.metadata?.run_id ?? d.run_id ?? d.spec?.run_id;
    if (typeof id === 'string' && id) return id;
  }
  // The run id is the subject's last token: rl.log.run.{run_id} (before issue 23) or rl.log.run.{owner}.{run_id}.
  return subject.startsWith(RUN_SUBJECT_PREFIX) ? subject.slice(RUN_SUBJECT_PREFIX.length).split('.').pop() || null : null;
}

export const deadLetterId = (durable: string, streamSeq: number): string => `${durable}:${streamSeq}`;

/** Dead letters and their retries, folded from rl.log.deadletter.* in log order. Pure. */
export function evolveDeadLetters(list: DeadLetter[], event: StoredEvent): DeadLetter[] {
  const d = (event.data ?? {}) as Record<string, unknown>;
  if (event.type === 'MessageDeadLettered') {
    const id = deadLetterId(String(d.durable), Number(d.stream_seq));
    if (list.some((l) => l.id === id)) return list;
    const subject = String(d.subject ?? '');
    const errorCode = String(d.error_code ?? 'INTERNAL');
    const because = notRetryableBecause(subject, errorCode);
    return [...list, {
      id, durable: String(d.durable), stream_seq: Number(d.stream_seq), subject, event_type: typeof d.event_type === 'string' ? d.event_type : null,
      // The run and the payload are read from the original message (DeadLettersService); a run subject names its run.
      run_id: runIdOf(subject, []),
      reason: String(d.reason ?? ''), error_code: errorCode, deliveries: Number(d.deliveries ?? 0),
      recorded_at: event.metadata.recorded_at, retryable: because === null, not_retryable_because: because, retries: [],
    }];
  }
  if (event.type === 'DeadLetterRetried') {
    const id = deadLetterId(String(d.durable), Number(d.stream_seq));
    return list.map((l) => (l.id === id && !l.retries.some((r) => r.new_seq === d.new_seq)
      ? { ...l, retries: [...l.retries, { new_seq: Number(d.new_seq), requested_by: String(d.requested_by ?? 'operator'), recorded_at: event.metadata.recorded_at }] }
      : l));
  }
  return list;
}
