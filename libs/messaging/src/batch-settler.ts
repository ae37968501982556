import type { JsMsg } from '@nats-io/jetstream';
import { deferredSettlement } from './handlers';

/**
 * Default of BatchOptions.stallMs. Past the ledger's row retries on the embedded store (RETRY.ledgerRow's ~16 s of
 * pauses, each attempt's requests bounded by the client's 5 s); on MongoDB a longer outage can outlast it, and the
 * consumer then consumes again from the ack floor, which loses nothing (handling is idempotent). Its purpose is the
 * promise that never settles, which would otherwise hold every later settlement for good.
 */
export const DEFERRED_STALL_MS = 120_000;

/**
 * Settles handled deliveries in log order. On an ack-all durable (the ledger's, issue 22) one ack, of the highest
 * sequence, settles them and everything before it: the settler sends it only once everything before is handled. It
 * is pulled and acked by its consumer identity, which has no response permission (permissions.yaml log.durables
 * `consumer`): nats-server 2.9 keeps every delivery's reply subject for a connection with response permissions until
 * it is answered or 2 min pass, and above 4,096 kept scans them all on every delivery (deliverMsg → pruneReplyPerms),
 * CPU that grows with the square of unanswered deliveries (measured: 40k deliveries, 0.19 s acking each, 9.02 s
 * acking the last of each 256); for a connection without them it keeps none. On an explicit-ack durable each
 * delivery is acked.
 */
export function settleInOrder(handled: readonly JsMsg[], ackAll = false): void {
  if (!handled.length) return;
  if (ackAll) return highest(handled).ack();
  for (const m of [...handled].sort((a, b) => a.seq - b.seq)) m.ack();
}

const highest = (handled: readonly JsMsg[]): JsMsg => handled.reduce((last, m) => (m.seq > last.seq ? m : last));

/**
 * Settles a batch consumer's deliveries in log order, each once what its batch's handler deferred (a
 * DeferredSettlement) and everything before it are settled: acks, and a poison message's term or nak (a term on an
 * ack-all consumer settles what is before it too, so it waits its turn like an ack). Deferred work that fails stops
 * this settler for good (logged) and calls `onBroken`: its consumer stops and consumes again from the ack floor,
 * so what was handled after the failure is handled again (the server redelivers it too: handling is idempotent).
 * On an ack-all consumer a nak stops it the same way, as does a delivery left unsettled (stopAt): a later ack would
 * settle that delivery unhandled. Deferred work still unsettled after `stallMs` counts as failed: a promise that never
 * settles (a bug in a handler) would otherwise hold every later settlement for good, and the server would redeliver
 * the held deliveries every ack_wait for ever (dead-lettered each time, never termed).
 */
export class BatchSettler {
  private chain: Promise<void> = Promise.resolve();
  private failed = false;

  constructor(
    private readonly durable: string,
    private readonly log: { error(entry: object): void },
    private readonly onBroken: () => void = () => undefined,
    private readonly ackAll = false,
    private readonly stallMs = DEFERRED_STALL_MS,
  ) {}

  /** Whether a deferred settlement failed: nothing is settled any more. */
  get broken(): boolean {
    return this.failed;
  }

  /** Acks `handled` (none: only orders `out`'s deferred work) after `out`'s deferred work and the batches before; resolves then. */
  after(handled: JsMsg[], out: unknown): Promise<void> {
    const deferred = deferredSettlement(out);
    const bounded = deferred && this.bounded(deferred);
    // Observed now: the chain reaches it only once the batches before are settled, and a rejection nobody waits on
    // yet would be unhandled (the process ends on one). The chain still sees it.
    bounded?.catch(() => undefined);
    // Ack-all: only the highest delivery is acked, so only it is kept while the deferred work runs (the batch's other
    // deliveries, their buffers and headers, are garbage at once instead of surviving into the old generation).
    const kept = this.ackAll && handled.length > 1 ? [highest(handled)] : handled;
    return this.enqueue(bounded, () => settleInOrder(kept, this.ackAll));
  }

  /** Runs `settle` (a term, a nak: `redelivered`) once everything before it is settled; resolves then. */
  inTurn(settle: () => void, redelivered = false): Promise<void> {
    return this.enqueue(undefined, settle, redelivered && this.ackAll ? 'a delivery was nak\'d on an ack-all durable' : undefined);
  }

  /** Once everything before is settled, settles nothing more: the consumer consumes again from the ack floor (`why`, logged). */
  stopAt(why: string): Promise<void> {
    return this.enqueue(undefined, () => undefined, why);
  }

  /** `breaks`: after `settle`, nothing more is settled (why, logged) and the consumer consumes again from the ack floor. */
  private enqueue(deferred: Promise<void> | undefined, settle: () => void, breaks?: string): Promise<void> {
    this.chain = this.chain.then(() => deferred).then(
      () => {
        if (this.failed) return;
        try {
          settle();
        } catch (err) {
          // A lost ack or term: the server redelivers after ack_wait, and handling is idempotent.
          this.log.error({ msg: 'settlement not sent', durable: this.durable, error: (err as Error)?.message });
        }
        if (breaks) this.break(breaks);
      },
      (err: unknown) => this.break(`deferred work of a batch failed: ${(err as Error)?.message}`),
    );
    return this.chain;
  }

  /** `deferred`, or a rejection once it has not settled within stallMs. */
  private bounded(deferred: Promise<void>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`it did not settle within ${this.stallMs} ms`)), this.stallMs);
      timer.unref();
    });
    return Promise.race([deferred, stalled]).finally(() => clearTimeout(timer));
  }

  private break(why: string): void {
    if (this.failed) return;
    this.failed = true;
    this.log.error({ msg: 'acks stop, consuming again from the ack floor', durable: this.durable, why });
    this.onBroken();
  }
}
