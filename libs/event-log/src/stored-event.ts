import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import type { JsMsg } from '@nats-io/jetstream';
import { decodeMessage, StoredEvent } from './envelope';
import type { StoredMessage } from './direct-reads';
import { ForeignMessageError } from './log-errors';

/** The header every log message carries its events' types in (comma-separated, commit order). */
export const EVENT_TYPE_HEADER = 'Rl-Event-Type';

/** `headers` (new ones by default) with the header every append carries: its events' types, in commit order. */
export function writerHeaders(types: string | readonly string[], headers: MsgHdrs = natsHeaders()): MsgHdrs {
  headers.set(EVENT_TYPE_HEADER, typeof types === 'string' ? types : types.join(','));
  return headers;
}

/** The types a log message's header names (a follower can tell its events without decoding them). */
export function eventTypesOf(headers: MsgHdrs | undefined): string[] {
  const value = headers?.get(EVENT_TYPE_HEADER);
  return value ? value.split(',') : [];
}

/** The header a message the server hands out or stores as a copy names its stream sequence in. */
const SEQUENCE_HEADER = 'Nats-Sequence';

/**
 * The headers nats-server stamps on what it hands out of a stream (a direct get's answer, a republished copy): one of
 * each per hand-out. A copy the server stored keeps the original's stamps, and gets the reader's on top.
 */
export const SERVER_STAMP_HEADERS = ['Nats-Stream', 'Nats-Subject', SEQUENCE_HEADER, 'Nats-Time-Stamp'] as const;

/**
 * Whether a message carries more of the server's stamps than its own read added (`stamped`: the read was a direct get
 * or a republish, which add one of each; a consumer's delivery and the message API add none): a copy of another
 * stored message, whichever stream it came from.
 */
export function copiedByServer(headers: MsgHdrs, stamped: boolean): boolean {
  const added = stamped ? 1 : 0;
  return SERVER_STAMP_HEADERS.some((name) => headers.values(name).length > added);
}

const NO_WRITER_HEADER = `carries no writer's header (${EVENT_TYPE_HEADER})`;
const copyOf = (seq: string | undefined, stream: string | undefined) => `is a copy of ${seq ? `message ${seq}` : 'a message'}${stream ? ` of stream ${stream}` : ''} the server stored here`;

/**
 * Why a stored log message is no Runledger writer's, or null when it is one. Every append has carried its events'
 * types in Rl-Event-Type since the first release: a message without it is an answer the server stored there (a
 * JetStream API response or acknowledgement sent to a request's reply subject). A direct get's copy of another
 * message keeps that message's headers, the server's stamps among them (copiedByServer), which no writer's message
 * carries of its own; its Nats-Sequence names the message it copies.
 */
export function writerMessageProblem(m: StoredMessage): string | null {
  if (m.writerProblem) return m.writerProblem();
  if (!m.headers?.get(EVENT_TYPE_HEADER)) return NO_WRITER_HEADER;
  return serverCopyProblem(m);
}

/** Why `m` is the server's stored copy of another message (its headers, the original's stamps among them), or null. */
export function serverCopyProblem(m: StoredMessage): string | null {
  const headers = m.headers;
  if (!headers) return null;
  const sequences = headers.values(SEQUENCE_HEADER);
  const source = headers.values('Nats-Stream')[0];
  if (copiedByServer(headers, m.stamped === true)) return copyOf(sequences[0], source);
  for (const copied of sequences) if (Number(copied) !== m.seq) return copyOf(copied, source);
  return null;
}

const RAW_EVENT_TYPE = Buffer.from(`\r\n${EVENT_TYPE_HEADER}:`);
const RAW_SEQUENCE = Buffer.from(`\r\n${SEQUENCE_HEADER}:`);
const RAW_STAMPS = SERVER_STAMP_HEADERS.map((name) => Buffer.from(`\r\n${name}:`));
const RAW_STREAM = Buffer.from('\r\nNats-Stream:');
const CRLF = Buffer.from('\r\n');

/**
 * writerMessageProblem read off the header block of a consumer's delivery (`NATS/1.0\r\nKey: value\r\n…`), which the
 * server stamps with nothing, without decoding it into headers: a replay checks every message of the log, and the
 * decode cost as much as a fifth of its time. The same verdict as the decoded check (stored-event.unit.spec.ts).
 */
export function rawWriterProblem(block: Uint8Array | undefined): string | null {
  if (!block) return NO_WRITER_HEADER;
  const bytes = Buffer.from(block.buffer, block.byteOffset, block.byteLength);
  const types = bytes.indexOf(RAW_EVENT_TYPE);
  if (types < 0) return NO_WRITER_HEADER;
  // A value at all: something before the line ends other than blanks (no string made for it).
  let v = types + RAW_EVENT_TYPE.length;
  while (v < bytes.length && (bytes[v] === 0x20 || bytes[v] === 0x09)) v++;
  if (v >= bytes.length || bytes[v] === 0x0d) return NO_WRITER_HEADER;
  // A delivery carries no stamp of the server's: any is a stored copy's (naming the message and stream it copies).
  if (!RAW_STAMPS.some((stamp) => bytes.indexOf(stamp) >= 0)) return null;
  const valueOf = (key: Buffer): string | undefined => {
    const at = bytes.indexOf(key);
    if (at < 0) return undefined;
    const end = bytes.indexOf(CRLF, at + key.length);
    return bytes.toString('utf8', at + key.length, end < 0 ? bytes.length : end).trim();
  };
  return copyOf(valueOf(RAW_SEQUENCE), valueOf(RAW_STREAM));
}

/**
 * The events of one log message, each with its position (stream sequence, index in the commit). Throws
 * ForeignMessageError on a message no writer made (writerMessageProblem), or whose events belong to another aggregate
 * than its subject names (an append stamps its subject's id on every event), and an Error on one that is not events.
 */
export function storedEvents(m: StoredMessage): StoredEvent[] {
  const { seq, subject } = m;
  const foreign = writerMessageProblem(m);
  if (foreign) throw new ForeignMessageError(seq, foreign);
  // The decoded envelopes themselves get their position (no copy: replay decodes every event of the log).
  const events = decodeMessage(m.data) as StoredEvent[];
  const aggregateId = subject.slice(subject.lastIndexOf('.') + 1);
  for (let index = 0; index < events.length; index++) {
    const event = events[index];
    if (event.metadata?.stream_id !== aggregateId) throw new ForeignMessageError(seq, `holds events of ${String(event.metadata?.stream_id)}, not of ${subject}`);
    event.seq = seq;
    event.index = index;
    event.subject = subject;
  }
  return events;
}

/** A consumer's message as events (see storedEvents). */
export function messageEvents(m: JsMsg): StoredEvent[] {
  return storedEvents(m);
}

/** Why a consumer dead-letters a message it could not take as events (the dead letter's reason). */
export function unreadableReason(err: unknown): string {
  return err instanceof ForeignMessageError ? "no writer's message" : 'undecodable message';
}

/**
 * A message that is not a writer's events (published by mistake, or stored by the server: the log cannot delete it) is
 * skipped by readers: none. `onUndecodable` hears of it (a consumer catching up must dead-letter it, as a delivery of
 * it would be).
 */
export function tryStoredEvents(m: StoredMessage, onUndecodable?: (err: unknown) => void): StoredEvent[] {
  try {
    return storedEvents(m);
  } catch (err) {
    onUndecodable?.(err);
    return [];
  }
}

/**
 * The run events of a message the log republished once stored (LIVE_RUN_PREFIX): its body, with the stream sequence
 * and subject the server added last (a copy's own headers come first); none when the message is not such a commit.
 */
export function liveEvents(m: { data: Uint8Array; headers?: MsgHdrs }): StoredEvent[] {
  const seq = Number(m.headers?.last(SEQUENCE_HEADER));
  const subject = m.headers?.last('Nats-Subject');
  return Number.isSafeInteger(seq) && seq > 0 && subject ? tryStoredEvents({ seq, subject, data: m.data, headers: m.headers, stamped: true }) : [];
}

/** Whether `a` comes before `b` in log order. */
export function positionBefore(a: Pick<StoredEvent, 'seq' | 'index'>, b: Pick<StoredEvent, 'seq' | 'index'>): boolean {
  return a.seq < b.seq || (a.seq === b.seq && a.index < b.index);
}
