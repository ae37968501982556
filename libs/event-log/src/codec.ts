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

/**
 * The envelopes of one append sealed, in order. A codec that seals without waiting (its keys at hand) costs no promise
 * per event and none for the batch (issue 22: each promise also runs the context propagation's hooks); one that must
 * wait is awaited as a whole, and its other seals' outcomes are handled whatever one of them throws.
 */
export function sealAll(codec: EventCodec, envelopes: readonly EventEnvelope[]): EventEnvelope[] | Promise<EventEnvelope[]> {
  const out: Array<EventEnvelope | Promise<EventEnvelope>> = [];
  let waits = false;
  try {
    for (const envelope of envelopes) {
      const sealed = codec.seal(envelope);
      if (sealed instanceof Promise) waits = true;
      out.push(sealed);
    }
  } catch (err) {
    // A seal that throws at once: the ones already waiting must not reject unhandled.
    for (const sealed of out) if (sealed instanceof Promise) sealed.catch(() => undefined);
    throw err;
  }
  return waits ? Promise.all(out) : (out as EventEnvelope[]);
}
