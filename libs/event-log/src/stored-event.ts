import type { MsgHdrs } from '@nats-io/transport-node';
import type { JsMsg } from '@nats-io/jetstream';
import { decodeEnvelope, StoredEvent } from './envelope';

/** Log messages as events: the decoded envelope with its stream position. */
export function toStoredEvent(m: JsMsg): StoredEvent {
  return storedEvent(m.data, m.seq, m.subject);
}

/**
 * A run event as the log republished it once stored (LIVE_RUN_PREFIX): its body, and its stream sequence and
 * subject from the server's headers; null when the message is not such an event.
 */
export function liveEvent(m: { data: Uint8Array; headers?: MsgHdrs }): StoredEvent | null {
  const seq = Number(m.headers?.get('Nats-Sequence'));
  const subject = m.headers?.get('Nats-Subject');
  return Number.isSafeInteger(seq) && seq > 0 && subject ? tryDecode(m.data, seq, subject) : null;
}

/** The decoded envelope itself gets its position (no copy: replay decodes every event of the log). */
function storedEvent(data: Uint8Array, seq: number, subject: string): StoredEvent {
  const event = decodeEnvelope(data) as StoredEvent;
  event.seq = seq;
  event.subject = subject;
  return event;
}

export function tryStoredEvent(m: JsMsg): StoredEvent | null {
  return tryDecode(m.data, m.seq, m.subject);
}

/** A message that is not an event (published by mistake; the log cannot delete it) is skipped by readers. */
export function tryDecode(data: Uint8Array, seq: number, subject: string): StoredEvent | null {
  try {
    return storedEvent(data, seq, subject);
  } catch {
    return null;
  }
}
