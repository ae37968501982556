import type { EventEnvelope } from './envelope';

/**
 * A transformation of event data between the caller and the log, applied by EventLog alone: `seal` runs on every
 * envelope before it is written, `open` on every envelope read back (reads, replays, consumers), so producers and
 * folds only ever see plain data. Issue 9 erasure seals personal and case data with per-owner keys this way.
 * Metadata, type and position are never touched: routing, ordering and audit hashing work on sealed events.
 */
export interface EventCodec {
  seal(event: EventEnvelope): EventEnvelope | Promise<EventEnvelope>;
  open<E extends EventEnvelope>(event: E): E | Promise<E>;
}
