import type { MessageHandler } from '@nestjs/microservices';
import type { JsMsg } from '@nats-io/jetstream';
import { AppError } from '@runledger/kernel';
import { messageEvents, unreadableReason, type EventLog, type StoredEvent, type StoredMessage } from '@runledger/event-log';
import { redeliveryDelayMs } from './durable-consumer';
import type { HandedPosition } from './consumer-lease';
import { BatchSettler } from './batch-settler';

/** What a batch consumer uses of the transport that runs it. */
export interface BatchHost {
  log(): EventLog;
  logger: { warn(entry: object): void; error(entry: object): void };
  closing(): boolean;
  /** Tracks work as in flight until it settles (a graceful stop finishes it). */
  track<T>(work: Promise<T>): Promise<T>;
  invoke(handler: MessageHandler, payload: unknown, ctx: unknown): Promise<unknown>;
  /** Records `m` as a dead letter, then terminates it (nak when the record failed: `redelivered`) through `settle`. */
  poison(m: Poisoned, durable: string, reason: string, err: unknown, settle: (action: () => void, redelivered?: boolean) => void): Promise<void>;
}

/** How a batch consumer runs (see LogConsumerOptions.batch). */
export interface BatchOptions {
  maxDeliver: number;
  durable: string;
  batch: number;
  /** The durable acks all (AckPolicy.All): one ack, of a batch's highest sequence, settles the batch (see settleInOrder). */
  ackAll: boolean;
  /** Events a previous holder was handed and never settled, handled before any delivery (see unsettled). */
  catchUp: CatchUp | null;
  /** How long a batch's deferred work may take to settle before it counts as failed (see BatchSettler). */
  stallMs: number;
  /** What the durable had delivered when this consumption opened (see takenBefore); absent: deliveries are not followed. */
  delivered?: Delivered;
}

/**
 * How far a durable has delivered: its delivery (consumer) sequence and the stream sequence of that delivery, and the
 * filter it delivers. The server numbers every delivery of a durable, to whichever puller, redeliveries included.
 */
export interface Delivered {
  filter: string;
  /** The durable's incarnation (its creation time): one made again numbers its deliveries from 1. */
  created: string;
  consumerSeq: number;
  streamSeq: number;
}

export interface CatchUp {
  filter: string;
  from: number;
  to: number;
}

/** What dead-lettering reads of a message and how it settles it (a delivery; or a catch-up's read, settled by no one: see catchUp). */
export type Poisoned = Pick<JsMsg, 'seq' | 'subject' | 'term' | 'nak'> & { info: Pick<JsMsg['info'], 'deliveryCount'> };

/** A durable's deliveries as they come, in bursts (see BurstPull), and how to stop taking them. */
export type Bursts = AsyncIterable<JsMsg[]> & { close(): Promise<unknown> };

/** A batch consumer's consumption (see LogConsumerOptions.batch): handed over in log order, settled by a BatchSettler. */
export class BatchConsumer {
  /** Settles handled deliveries in log order once what their handler deferred is durable. */
  private readonly settler: BatchSettler;
  private stopped = false;
  private messages?: Bursts;
  /** The durable's deliveries this consumer has seen or read back (see takenBefore). */
  private readonly delivered: Delivered | null;
  /** The durable's deliveries handed over to the handler, in order, up to (see handedThrough); none before the catch-up. */
  private handed: Delivered | null = null;

  constructor(private readonly host: BatchHost, private readonly handler: MessageHandler, private readonly opts: BatchOptions) {
    this.settler = new BatchSettler(opts.durable, host.logger, () => this.stop(), opts.ackAll, opts.stallMs);
    this.delivered = opts.delivered ? { ...opts.delivered } : null;
  }

  /**
   * Reads `messages`: one reader queues deliveries, one worker hands them over in order, up to `batch` at a time (a
   * burst is queued whole, so one burst is one batch: see BurstPull). Resolves when the worker ends: true when it
   * stopped because a deferred settlement failed (the caller consumes again from the ack floor).
   */
  start(messages: Bursts): Promise<boolean> {
    const { opts } = this;
    this.messages = messages;
    const queue: JsMsg[] = [];
    const waiter: { wake?: () => void } = {};
    let ended = false;
    void (async () => {
      for await (const burst of messages) {
        if (this.host.closing()) break;
        queue.push(...burst);
        waiter.wake?.();
      }
    })().catch((err) => this.host.logger.error({ msg: 'consumer loop ended', durable: opts.durable, error: (err as Error).message })).finally(() => {
      ended = true;
      waiter.wake?.();
    });
    return (async () => {
      // Not caught up (stopping): no delivery is handled, on an ack-all durable its ack would settle the range unhandled.
      if (opts.catchUp && !(await this.catchUp(opts.catchUp, 'handling what the previous holder left unsettled'))) return this.stopped;
      // Everything the durable had delivered before this consumption is handled now (or was, acked by its holder).
      this.handed = opts.delivered ? { ...opts.delivered } : null;
      for (;;) {
        if (this.stopped) return true;
        if (!queue.length) {
          if (ended || this.host.closing()) return false;
          await new Promise<void>((resolve) => (waiter.wake = resolve));
          waiter.wake = undefined;
          continue;
        }
        const batch = queue.splice(0, opts.batch);
        try {
          await this.host.track(this.onDelivered(batch));
        } catch (err) {
          // The bus failed under an ack or a dead-letter (a nats-server restart): nothing was lost, the unacked
          // messages come back after ack_wait. The worker must live on: a rejected loop would crash the process.
          this.host.logger.warn({ msg: 'batch not settled, left to redelivery', durable: opts.durable, size: batch.length, error: (err as Error)?.message });
        }
      }
    })();
  }

  /**
   * How far this consumption has handed the durable's deliveries over to the handler, everything before included: the
   * next holder starts from it (ConsumerLease keeps it). Null until the catch-up is done, and without `delivered`.
   */
  handedThrough(): HandedPosition | null {
    const h = this.handed;
    return h && { created: h.created, consumer_seq: h.consumerSeq, stream_seq: h.streamSeq };
  }

  /** Takes no more deliveries (what was delivered and not settled is redelivered); the worker ends after its batch. */
  private stop(): void {
    this.stopped = true;
    void this.messages?.close().catch(() => undefined);
  }

  /**
   * Hands the unsettled range to the handler in log order before any delivery, retrying until it is handled: a
   * batch handler is idempotent (the server may still redeliver these events later), and going on without them
   * would break the order it relies on. Resolves true once handled (false: stopping first).
   */
  private async catchUp(range: CatchUp, why: string): Promise<boolean> {
    const { handler, opts } = this;
    this.host.logger.warn({ msg: why, durable: opts.durable, from: range.from, to: range.to });
    for (let attempt = 1; !this.host.closing() && !this.stopped; attempt++) {
      try {
        const undecodable: Array<{ m: StoredMessage; err: unknown }> = [];
        const events = await this.host.log().range(range.filter, range.from, range.to, (m, err) => void undecodable.push({ m, err }));
        // Dead-lettered before anything is handled: the first ack past one (on an ack-all durable) settles it.
        for (const { m, err } of undecodable) await this.deadLetterUnread(m, err);
        for (let i = 0; i < events.length; i += opts.batch) void this.host.track(this.settler.after([], await this.host.invoke(handler, events.slice(i, i + opts.batch), { durable: opts.durable })));
        return true;
      } catch (err) {
        this.host.logger.warn({ msg: 'unsettled range not handled yet, retrying', durable: opts.durable, attempt, error: (err as Error)?.message });
        await new Promise((resolve) => setTimeout(resolve, redeliveryDelayMs(attempt)));
      }
    }
    return false;
  }

  /**
   * Records an undecodable message of the unsettled range as a dead letter, as its delivery would be (BatchHost.poison);
   * throws when the record failed. Neither termed nor nak'd here: an ack past it settles it, and a delivery of it
   * meanwhile is dead-lettered again (the same record: its command id is the sequence).
   */
  private async deadLetterUnread(m: StoredMessage, err: unknown): Promise<void> {
    let recorded = false;
    // Delivered at least once: it is in the range the previous holder was handed.
    const read: Poisoned = { seq: m.seq, subject: m.subject, info: { deliveryCount: 1 }, term: () => undefined, nak: () => undefined };
    await this.host.poison(read, this.opts.durable, unreadableReason(err), err, (_settle, redelivered) => void (recorded = !redelivered));
    if (!recorded) throw new Error(`the dead letter of ${m.seq} was not recorded`);
  }

  /**
   * Hands `batch` over in log order, reading back first whatever the durable delivered to another puller before a
   * delivery of it (takenBefore): on an ack-all durable the ack of this batch settles those too, so a puller holding
   * the consumer's key could otherwise take events from the handler for good (the ledger's: never chained; probe).
   */
  private async onDelivered(batch: JsMsg[]): Promise<void> {
    let from = 0;
    for (let i = 0; i <= batch.length; i++) {
      const taken = i < batch.length ? this.takenBefore(batch[i]) : null;
      if (i < batch.length && !taken) continue;
      if (i > from) {
        const segment = batch.slice(from, i);
        const { through, complete } = await this.onLogBatch(segment);
        if (through) this.handedTo(through);
        // Left unhandled from there (stopping, or a nak on an ack-all durable): nothing after it counts as handed.
        if (!complete) return;
      }
      from = i;
      // Stopping first: the rest stays unsettled (nothing after it is acked), and the next holder reads it from the ack floor.
      if (taken && !(await this.catchUp(taken, 'reading back what the durable delivered to another puller'))) return;
    }
  }

  /** Everything the durable delivered up to `m` is handed over (or dead-lettered): see handedThrough. */
  private handedTo(m: JsMsg): void {
    const h = this.handed;
    const dseq = m.info.deliverySequence;
    if (h && typeof dseq === 'number' && dseq > h.consumerSeq) this.handed = { ...h, consumerSeq: dseq, streamSeq: Math.max(h.streamSeq, m.seq) };
  }

  /**
   * The log range the durable delivered elsewhere before `m`: its delivery sequence jumped past deliveries this
   * consumer never saw, so the events between the last stream sequence it saw and `m`'s went to someone else (or
   * were lost on the way: reading them back is idempotent either way). Advances what this consumer has seen.
   */
  private takenBefore(m: JsMsg): CatchUp | null {
    const seen = this.delivered;
    const dseq = m.info.deliverySequence;
    if (!seen || typeof dseq !== 'number') return null;
    const taken = dseq > seen.consumerSeq + 1 && m.seq > seen.streamSeq + 1 ? { filter: seen.filter, from: seen.streamSeq + 1, to: m.seq - 1 } : null;
    seen.consumerSeq = Math.max(seen.consumerSeq, dseq);
    seen.streamSeq = Math.max(seen.streamSeq, m.seq);
    return taken;
  }

  /**
   * Hands `delivered` over as one batch; says through which delivery all of it (in log order) was handed over or
   * dead-lettered (null: not even the first) and whether that is all of it: a delivery left unsettled (stopping) or
   * nak'd on an ack-all durable stops it there.
   */
  private async onLogBatch(delivered: JsMsg[]): Promise<{ through: JsMsg | null; complete: boolean }> {
    const { opts } = this;
    // A message redelivered while its first delivery still waited here (ack_wait ran out during a bus fault) is one
    // event: handed over once, in its place, and settled through its latest delivery.
    const bySeq = new Map<number, JsMsg>();
    for (const m of delivered) bySeq.set(m.seq, m);
    const batch = [...bySeq.values()];
    const ready: Array<{ m: JsMsg; events: StoredEvent[] }> = [];
    // Terms of this batch's poison messages, sent after its acks: on an ack-all durable a term settles every sequence
    // before it, this batch's included.
    const terms: Array<{ seq: number; action: () => void; redelivered?: boolean }> = [];
    for (const m of batch) {
      const later = (action: () => void, redelivered?: boolean) => void terms.push({ seq: m.seq, action, redelivered });
      let events;
      try {
        events = messageEvents(m);
      } catch (err) {
        await this.host.poison(m, opts.durable, unreadableReason(err), err, later);
        continue;
      }
      if (m.info.deliveryCount > opts.maxDeliver) await this.host.poison(m, opts.durable, 'delivery budget exhausted', new AppError('INTERNAL'), later);
      else ready.push({ m, events });
    }
    // On an ack-all durable nothing after a nak'd delivery may be acked (it would settle that one unhandled): what
    // follows it is left to the next pass from the ack floor, which the nak starts (BatchSettler.inTurn).
    const nakd = opts.ackAll ? terms.find((t) => t.redelivered)?.seq : undefined;
    const handled = nakd === undefined ? ready : ready.filter((r) => r.m.seq < nakd);
    const unhandled = handled.length ? await this.handle(handled) : null;
    for (const { action, redelivered } of terms) void this.host.track(this.settler.inTurn(action, redelivered));
    const stop = Math.min(nakd ?? Infinity, unhandled ?? Infinity);
    const done = batch.filter((m) => m.seq < stop);
    return { through: done.reduce<JsMsg | null>((last, m) => (!last || m.seq > last.seq ? m : last), null), complete: done.length === batch.length };
  }

  /**
   * Hands `ready` over as one batch, or, when that fails, one commit at a time; settled in turn (see BatchSettler).
   * Returns the sequence of the first delivery left unhandled (stopping), or null when every one was handed over.
   */
  private async handle(ready: Array<{ m: JsMsg; events: StoredEvent[] }>): Promise<number | null> {
    const { handler, opts } = this;
    // No progress heartbeats: a batch handler is idempotent, and one that outlives ack_wait sees the batch again.
    let handledAll: unknown;
    try {
      // As in onLogMessage: handlers see events as producers wrote them (the log's codec opens sealed data).
      const events = await Promise.all(ready.flatMap((r) => r.events.map((e) => this.host.log().open(e))));
      handledAll = await this.host.invoke(handler, events, { durable: opts.durable });
    } catch {
      // One commit at a time, in order, each retried in place until handled or dead-lettered: a nak'd commit would be
      // redelivered after later ones were handled, and a batch consumer is one whose handler needs log order.
      for (const r of ready) {
        if (await this.handleInPlace(r.m, () => Promise.all(r.events.map((e) => this.host.log().open(e))))) continue;
        // Left unsettled (stopping): on an ack-all durable any later ack or term would settle it unhandled, so none is
        // sent; the next pass from the ack floor (this consumer's, or the next holder's catchUp) handles it first.
        if (opts.ackAll) this.settler.stopAt(`${r.m.seq} was left unsettled on an ack-all durable`);
        return r.m.seq;
      }
      return null;
    }
    void this.host.track(this.settler.after(ready.map((r) => r.m), handledAll));
    return null;
  }

  /** Dead-letters `m`; its term (or nak) waits for everything before it to be settled (see BatchSettler). */
  private poison(m: JsMsg, reason: string, err: unknown): Promise<void> {
    return this.host.poison(m, this.opts.durable, reason, err, (action, redelivered) => void this.host.track(this.settler.inTurn(action, redelivered)));
  }

  /** Resolves false when `m` is left unsettled (stopping), true once its settlement is in turn. */
  private async handleInPlace(m: JsMsg, opened: () => Promise<StoredEvent[]>): Promise<boolean> {
    const { handler, opts } = this;
    for (let attempt = m.info.deliveryCount; ; attempt++) {
      try {
        const out = await this.host.invoke(handler, await opened(), { durable: opts.durable });
        // Not awaited: the settler keeps the order, and a replay of a batch commit by commit must not wait out each
        // commit's deferred work (the ledger's ROW_HOLD_MS) in turn: 256 of them would outlast ack_wait.
        void this.host.track(this.settler.after([m], out));
        return true;
      } catch (err) {
        const retryable = err instanceof AppError ? err.retryable : true;
        if (!retryable || attempt >= opts.maxDeliver) return this.poison(m, 'handler failed', err).then(() => true);
        // Stopping: left unsettled, the next holder (or this consumer, consuming again) handles it first (catchUp), in order.
        if (this.host.closing() || this.stopped) return false;
        this.host.logger.warn({ msg: 'handler failed, retrying in order', durable: opts.durable, seq: m.seq, attempt, error: (err as Error)?.message });
        await new Promise((resolve) => setTimeout(resolve, redeliveryDelayMs(attempt)));
      }
    }
  }
}
