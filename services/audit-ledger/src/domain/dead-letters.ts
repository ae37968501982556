import type { DeadLetter } from '@runledger/contracts';
import type { StoredEvent } from '@runledger/event-log';

/** Commands can be re-published; a run event re-published would enter its run a second time. */
export const RETRYABLE_SUBJECT_PREFIX = 'rl.log.inbox.';

export const deadLetterId = (durable: string, streamSeq: number): string => `${durable}:${streamSeq}`;

/** Dead letters and their retries, folded from rl.log.deadletter.* in log order. Pure. */
export function evolveDeadLetters(list: DeadLetter[], event: StoredEvent): DeadLetter[] {
  const d = (event.data ?? {}) as Record<string, unknown>;
  if (event.type === 'MessageDeadLettered') {
    const id = deadLetterId(String(d.durable), Number(d.stream_seq));
    if (list.some((l) => l.id === id)) return list;
    const subject = String(d.subject ?? '');
    return [...list, {
      id, durable: String(d.durable), stream_seq: Number(d.stream_seq), subject, event_type: typeof d.event_type === 'string' ? d.event_type : null,
      reason: String(d.reason ?? ''), error_code: String(d.error_code ?? 'INTERNAL'), deliveries: Number(d.deliveries ?? 0),
      recorded_at: event.metadata.recorded_at, retryable: subject.startsWith(RETRYABLE_SUBJECT_PREFIX), retries: [],
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
