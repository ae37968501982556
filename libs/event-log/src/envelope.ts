/**
 * The event envelope: `{ type, data, metadata }`. Time is data (`recorded_at`), so folds never read a clock.
 * The envelope is wrapped under `event` on the wire because NestJS's NATS deserializer unwraps top-level `data`.
 */
export interface EventMetadata {
  event_id: string;
  /** Aggregate stream id (run id, conversation id …); its subject's last sequence is the aggregate version. */
  stream_id: string;
  run_id?: string;
  parent_run_id?: string;
  root_run_id?: string;
  case_id?: string;
  /** The user whose personal data the event carries (issue 9 erasure: the user's data key seals it). */
  user_id?: string;
  correlation_id?: string;
  /** The command that caused this event. */
  causation_id?: string;
  schema_version: number;
  contract_version: 'v1';
  traceparent?: string;
  tracestate?: string;
  /** Which service appended it. */
  producer: string;
  recorded_at: string;
}

export interface EventEnvelope<TType extends string = string, TData = unknown> {
  type: TType;
  data: TData;
  metadata: EventMetadata;
}

/** An event read back from the log, with its position. */
export interface StoredEvent<TType extends string = string, TData = unknown> extends EventEnvelope<TType, TData> {
  /** Stream sequence: global order. */
  seq: number;
  subject: string;
}

/** What a caller hands to append: metadata that the log fills in is optional. */
export interface NewEvent<TType extends string = string, TData = unknown> {
  type: TType;
  data: TData;
  metadata?: Partial<Omit<EventMetadata, 'event_id' | 'recorded_at' | 'schema_version' | 'contract_version' | 'producer' | 'stream_id'>>;
}

export const ENVELOPE_SCHEMA_VERSION = 1;

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

export function encodeEnvelope(envelope: EventEnvelope): Uint8Array {
  return textEncoder.encode(JSON.stringify({ event: envelope }));
}

export function decodeEnvelope(bytes: Uint8Array): EventEnvelope {
  const parsed = JSON.parse(textDecoder.decode(bytes)) as { event?: EventEnvelope };
  if (!parsed || typeof parsed !== 'object' || !parsed.event || typeof parsed.event.type !== 'string') {
    throw new Error('not a Runledger event envelope');
  }
  return parsed.event;
}
