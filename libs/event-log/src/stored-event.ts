import type { MsgHdrs } from '@nats-io/transport-node';
import type { JsMsg } from '@nats-io/jetstream';
import { decodeMessage, StoredEvent } from './envelope';

/** The header every log message carries its events' types in (comma-separated, commit order). */
export const EVENT_TYPE_HEADER = 'Rl-Event-Type';

/** The types a log message's header names (a follower can tell its events without decoding them). */
export function eventTypesOf(headers: MsgHdrs | undefined): string[] {
  const value = headers?.get(EVENT_TYPE_HEADER);
  return value ? value.split(',') : [];
}

/** The events of one log message, each with its position (stream sequence, index in the commit); throws on a message that is not events. */
export function storedEvents(data: Uint8Array, seq: number, subject: string): StoredEvent[] {
  // The decoded envelopes themselves get their position (no copy: replay decodes every event of the log).
  const events = decodeMessage(data) as StoredEvent[];
  for (let index = 0; index < events.length; index++) {
    const event = events[index];
    event.seq = seq;
    event.index = index;
    event.subject = subject;
  }
  return events;
}

/** A consumer's message as events (see storedEvents). */
export function messageEvents(m: JsMsg): StoredEvent[] {
  return storedEvents(m.data, m.seq, m.subject);
}

/**
 * A message that is not events (published by mistake; the log cannot delete it) is skipped by readers: none.
 * `onUndecodable` hears of it (a consumer catching up must dead-letter it, as a delivery of it would be).
 */
export function tryStoredEvents(data: Uint8Array, seq: number, subject: string, onUndecodable?: (err: unknown) => void): StoredEvent[] {
  try {
    return storedEvents(data, seq, subject);
  } catch (err) {
    onUndecodable?.(err);
    return [];
  }
}

/**
 * The run events of a message the log republished once stored (LIVE_RUN_PREFIX): its body, with the stream sequence
 * and subject from the server's headers; none when the message is not such a commit.
 */
export function liveEvents(m: { data: Uint8Array; headers?: MsgHdrs }): StoredEvent[] {
  const seq = Number(m.headers?.get('Nats-Sequence'));
  const subject = m.headers?.get('Nats-Subject');
  return Number.isSafeInteger(seq) && seq > 0 && subject ? tryStoredEvents(m.data, seq, subject) : [];
}

/** Whether `a` comes before `b` in log order. */
export function positionBefore(a: Pick<StoredEvent, 'seq' | 'index'>, b: Pick<StoredEvent, 'seq' | 'index'>): boolean {
  return a.seq < b.seq || (a.seq === b.seq && a.index < b.index);
}
