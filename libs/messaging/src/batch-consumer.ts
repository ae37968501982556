import type { MessageHandler } from '@nestjs/microservices';
import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import { AppError } from '@runledger/kernel';
import { messageEvents, type EventLog, type StoredEvent } from '@runledger/event-log';
import { redeliveryDelayMs } from './durable-consumer';
import { deferredSettlement } from './handlers';

/** What a batch consumer uses of the transport that runs it. */
export interface BatchHost {
  log(): EventLog;
  logger: { warn(entry: object): void; error(entry: object): void };
  closing(): boolean;
  /** Tracks work as in flight until it settles (a graceful stop finishes it). */
  track<T>(work: Promise<T>): Promise<T>;
  invoke(handler: MessageHandler, payload: unknown, ctx: unknown): Promise<unknown>;
  /** Records `m` as a dead letter, then terminates it. */
  poison(m: JsMsg, durable: string, reason: string, err: unknown): Promise<void>;
}

/** How a batch consumer runs (see LogConsumerOptions.batch). */
export interface BatchOptions {
  maxDeliver: number;
  durable: string;
  batch: number;
  lingerMs: number;
  /** Acks handled batches in log order once what their handler deferred is durable (see BatchSettler). */
  settler: BatchSettler;
  /** Events a previous holder was handed and never settled, handled before any delivery (see unsettled). */
  catchUp: CatchUp | null;
}

export interface CatchUp {
  filter: string;
  from: number;
  to: number;
}

/** A batch consumer's consumption (see LogConsumerOptions.batch): handed over in log order, settled by a BatchSettler. */
export class BatchConsumer {
  constructor(private readonly host: BatchHost, private readonly handler: MessageHandler, private readonly opts: BatchOptions) {}

  /** Starts reading `messages`: one reader queues deliveries, one worker hands them over in order. */
  start(messages: ConsumerMessages): void {
    const { opts } = this;
    const queue: JsMsg[] = [];
    const waiter: { wake?: () => void } = {};
    let ended = false;
    void (async () => {
      for await (const m of messages) {
        if (this.host.closing()) break;
        queue.push(m);
        waiter.wake?.();
      }
    })().catch((err) => this.host.logger.error({ msg: 'consumer loop ended', durable: opts.durable, error: (err as Error).message })).finally(() => {
      ended = true;
      waiter.wake?.();
    });
    void (async () => {
      if (opts.catchUp) await this.catchUp(opts.catchUp);
      for (;;) {
        if (!queue.length) {
          if (ended || this.host.closing()) return;
          await new Promise<void>((resolve) => (waiter.wake = resolve));
          waiter.wake = undefined;
          continue;
        }
        if (opts.lingerMs > 0 && queue.length < opts.batch && !this.host.closing()) await new Promise((resolve) => setTimeout(resolve, opts.lingerMs));
        const batch = queue.splice(0, opts.batch);
        try {
          await this.host.track(this.onLogBatch(batch));
        } catch (err) {
          // The bus failed under an ack or a dead-letter (a nats-server restart): nothing was lost, the unacked
          // messages come back after ack_wait. The worker must live on: a rejected loop would crash the process.
          this.host.logger.warn({ msg: 'batch not settled, left to redelivery', durable: opts.durable, size: batch.length, error: (err as Error)?.message });
        }
      }
    })();
  }

  /**
   * Hands the unsettled range to the handler in log order before any delivery, retrying until it is handled: a
   * batch handler is idempotent (the server may still redeliver these events later), and going on without them
   * would break the order it relies on.
   */
  private async catchUp(range: CatchUp): Promise<void> {
    const { handler, opts } = this;
    this.host.logger.warn({ msg: 'handling what the previous holder left unsettled', durable: opts.durable, from: range.from, to: range.to });
    for (let attempt = 1; !this.host.closing(); attempt++) {
      try {
        const events = await this.host.log().range(range.filter, range.from, range.to);
        for (let i = 0; i < events.length; i += opts.batch) void this.host.track(opts.settler.after([], await this.host.invoke(handler, events.slice(i, i + opts.batch), { durable: opts.durable })));
        return;
      } catch (err) {
        this.host.logger.warn({ msg: 'unsettled range not handled yet, retrying', durable: opts.durable, attempt, error: (err as Error)?.message });
        await new Promise((resolve) => setTimeout(resolve, redeliveryDelayMs(attempt)));
      }
    }
  }

  private async onLogBatch(delivered: JsMsg[]): Promise<void> {
    const { handler, opts } = this;
    // A message redelivered while its first delivery still waited here (ack_wait ran out during a bus fault) is one
    // event: handed over once, in its place, and settled through its latest delivery.
    const bySeq = new Map<number, JsMsg>();
    for (const m of delivered) bySeq.set(m.seq, m);
    const batch = [...bySeq.values()];
    const ready: Array<{ m: JsMsg; events: StoredEvent[] }> = [];
    for (const m of batch) {
      let events;
      try {
        events = messageEvents(m);
      } catch (err) {
        await this.host.poison(m, opts.durable, 'undecodable message', err);
        continue;
      }
      if (m.info.deliveryCount > opts.maxDeliver) await this.host.poison(m, opts.durable, 'delivery budget exhausted', new AppError('INTERNAL'));
      else ready.push({ m, events });
    }
    if (!ready.length) return;
    // A delivery is settled by at most one publish to its reply subject, and none is sent before it: a batch
    // consumer's owner may ack through its response permission (permissions.yaml `acks: responses`), which allows
    // one publish per delivery. So no progress heartbeats: a batch handler is idempotent, and one that outlives
    // ack_wait sees the batch again.
    let handledAll: unknown;
    try {
      // As in onLogMessage: handlers see events as producers wrote them (the log's codec opens sealed data).
      const events = await Promise.all(ready.flatMap((r) => r.events.map((e) => this.host.log().open(e))));
      handledAll = await this.host.invoke(handler, events, { durable: opts.durable });
    } catch {
      // One commit at a time, in order, each retried in place until handled or dead-lettered: a nak'd commit would be
      // redelivered after later ones were handled, and a batch consumer is one whose handler needs log order.
      for (const r of ready) await this.handleInPlace(r.m, () => Promise.all(r.events.map((e) => this.host.log().open(e))));
      return;
    }
    void this.host.track(opts.settler.after(ready.map((r) => r.m), handledAll));
  }

  private async handleInPlace(m: JsMsg, opened: () => Promise<StoredEvent[]>): Promise<void> {
    const { handler, opts } = this;
    for (let attempt = m.info.deliveryCount; ; attempt++) {
      try {
        await this.host.track(opts.settler.after([m], await this.host.invoke(handler, await opened(), { durable: opts.durable })));
        return;
      } catch (err) {
        const retryable = err instanceof AppError ? err.retryable : true;
        if (!retryable || attempt >= opts.maxDeliver) return this.host.poison(m, opts.durable, 'handler failed', err);
        // Stopping: left unsettled, the next holder handles it first (catchUp), in order.
        if (this.host.closing()) return;
        this.host.logger.warn({ msg: 'handler failed, retrying in order', durable: opts.durable, seq: m.seq, attempt, error: (err as Error)?.message });
        await new Promise((resolve) => setTimeout(resolve, redeliveryDelayMs(attempt)));
      }
    }
  }
}

/**
 * Settles a handled batch (issue 22: one ack per batch, not per delivery). On an ack-all consumer the ack of the
 * batch's highest stream sequence settles every delivery up to it, the earlier ones included (nats-server drops each
 * pending sequence at or below it); the other deliveries get no publish, so their reply subjects stay in nats-server's
 * response bookkeeping of the owner until they expire (2 min), a map it prunes once a second. A consumer created
 * before with explicit acks (the server cannot change a policy) gets one ack per delivery, in log order.
 */
export function settleBatch(handled: JsMsg[], ackAll: boolean): void {
  if (!handled.length) return;
  if (!ackAll) {
    for (const m of handled) m.ack();
    return;
  }
  handled.reduce((last, m) => (m.seq > last.seq ? m : last)).ack();
}

/**
 * Acks a batch consumer's handled batches in log order, each once what its handler deferred (a DeferredSettlement) and
 * every batch before it are durable: on an ack-all consumer an ack settles everything before it too, so no batch may
 * be acked while an earlier one still holds work. Deferred work that fails stops the acks for good (logged):
 * acking a later batch would settle the failed one; the server redelivers after ack_wait instead.
 */
export class BatchSettler {
  private chain: Promise<void> = Promise.resolve();
  private broken = false;

  constructor(private readonly ackAll: boolean, private readonly durable: string, private readonly log: { error(entry: object): void }) {}

  /** Acks `handled` (none: only orders `out`'s deferred work) after `out`'s deferred work and the batches before; resolves then. */
  after(handled: JsMsg[], out: unknown): Promise<void> {
    const deferred = deferredSettlement(out);
    this.chain = this.chain.then(() => deferred).then(
      () => {
        if (this.broken) return;
        try {
          settleBatch(handled, this.ackAll);
        } catch (err) {
          // A lost ack is settled by the next one (ack-all), or the server redelivers: handling is idempotent.
          this.log.error({ msg: 'ack not sent', durable: this.durable, error: (err as Error)?.message });
        }
      },
      (err: unknown) => {
        this.broken = true;
        this.log.error({ msg: 'deferred work of a batch failed: acks stop, the server redelivers after ack_wait', durable: this.durable, error: (err as Error)?.message });
      },
    );
    return this.chain;
  }
}
