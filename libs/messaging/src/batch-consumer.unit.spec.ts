import type { JsMsg } from '@nats-io/jetstream';
import { AppError } from '@runledger/kernel';
import { encodeEnvelope, writerHeaders, type StoredEvent, type StoredMessage } from '@runledger/event-log';
import { BatchConsumer, type BatchHost, type BatchOptions, type Bursts, type CatchUp } from './batch-consumer';

const sent: string[] = [];
const notEvents = new TextEncoder().encode('not events');
// A writer's commit of run r: its header, and its events naming the run (storedEvents skips anything else as foreign).
const delivery = (seq: number, data = encodeEnvelope({ type: 'Plain', data: { n: seq }, metadata: { stream_id: 'r' } as never })) =>
  ({ seq, subject: 'rl.log.run.o.r', data, headers: writerHeaders('Plain'), info: { deliveryCount: 1 }, ack: () => void sent.push(`ack ${seq}`), term: () => void sent.push(`term ${seq}`), nak: () => void sent.push(`nak ${seq}`) }) as unknown as JsMsg;

/** Hands `delivered` over as one pull (then ends), as ConsumerMessages would. */
/** Deliveries as BurstPull yields them: here one burst each, so batches form only as the worker falls behind. */
function pulled(delivered: JsMsg[]): Bursts {
  return Object.assign((async function* () {
    for (const m of delivered) yield [m];
  })(), { close: async () => undefined });
}

interface Fake {
  host: BatchHost;
  closing: boolean;
  deadLettered: number[];
  settledWork: Array<Promise<unknown>>;
}

function fakeHost(invoke: (payload: StoredEvent[], fake: Fake) => unknown, opts: { range?: (onUndecodable: (m: StoredMessage, err: unknown) => void) => StoredEvent[]; appendFails?: () => boolean } = {}): Fake {
  const fake: Fake = { closing: false, deadLettered: [], settledWork: [], host: undefined as never };
  fake.host = {
    log: () => ({ open: (e: StoredEvent) => e, range: async (_f: string, _from: number, _to: number, onUndecodable?: (m: StoredMessage, err: unknown) => void) => {
      await new Promise((resolve) => setImmediate(resolve)); // read while deliveries arrive
      return opts.range?.((m, err) => onUndecodable?.(m, err)) ?? [];
    } }) as never,
    logger: { warn: () => undefined, error: () => undefined },
    closing: () => fake.closing,
    track: (work) => {
      fake.settledWork.push(work.catch(() => undefined));
      return work;
    },
    invoke: async (_h, payload) => invoke(payload as StoredEvent[], fake),
    // As the transport's: a recorded dead letter is termed in turn, one not recorded is nak'd (`redelivered`).
    poison: async (m, _d, _r, _e, settle) => {
      if (opts.appendFails?.()) return settle(() => m.nak(), true);
      fake.deadLettered.push(m.seq);
      settle(() => m.term());
    },
  };
  return fake;
}

const options = (catchUp: CatchUp | null = null): BatchOptions => ({ maxDeliver: 5, durable: 'audit-ledger', batch: 8, ackAll: true, catchUp, stallMs: 60_000 });

async function consume(fake: Fake, delivered: JsMsg[], catchUp: CatchUp | null = null): Promise<boolean> {
  const broken = await new BatchConsumer(fake.host, (() => undefined) as never, options(catchUp)).start(pulled(delivered));
  for (let done = 0; done < fake.settledWork.length; done++) await fake.settledWork[done];
  return broken;
}

/** A host whose batch handler fails once (so commits go one at a time), then stops while commit 2 fails. */
function stoppingAtCommit2(): Fake {
  let calls = 0;
  return fakeHost((events, f) => {
    calls++;
    if (calls === 1) throw new Error('the batch failed'); // one commit at a time from here
    if (events[0].seq === 2) {
      f.closing = true;
      throw new AppError('INTERNAL', 'transient');
    }
    return undefined;
  });
}

describe('Issue 22 review: on an ack-all durable nothing unhandled is settled by a later ack', () => {
  beforeEach(() => (sent.length = 0));

  it('Issue 22 review (HIGH): a commit left unsettled while stopping, in a batch retried commit by commit, is settled by no later ack or term', async () => {
    const fake = stoppingAtCommit2();
    const broken = await consume(fake, [delivery(1), delivery(2), delivery(3), delivery(4, notEvents)]);
    // 1 is acked; 2 is left to the next pass from the ack floor, so neither 3's ack nor 4's term (both would settle 2).
    expect(sent).toEqual(['ack 1']);
    expect(broken).toBe(true);
  });

  it('Issue 22 review (MEDIUM): catch-up dead-letters an unreadable message of the unsettled range before any ack past it', async () => {
    const handled: number[] = [];
    let failedAppends = 1;
    const fake = fakeHost((events) => void handled.push(...events.map((e) => e.seq)), {
      range: (onUndecodable) => {
        onUndecodable({ seq: 5, subject: 'rl.log.run.o.r', data: notEvents }, new Error('not events'));
        return [4, 6].map((seq) => ({ seq, index: 0, subject: 'rl.log.run.o.r', type: 'Plain', data: {}, metadata: {} }) as unknown as StoredEvent);
      },
      // The first dead-letter append fails: catch-up must not go on past 5 (retried until recorded).
      appendFails: () => failedAppends-- > 0,
    });
    await consume(fake, [delivery(7)], { filter: 'rl.log.run.>', from: 4, to: 6 });
    expect(fake.deadLettered).toEqual([5]);
    // Neither termed nor nak'd by catch-up: 7's ack settles it, its dead letter recorded.
    expect(sent).toEqual(['ack 7']);
    expect(handled).toEqual([4, 6, 7]);
  });

  it('Issue 22 review: a consumer stopping before its catch-up is done hands over no delivery (its ack would settle the range unhandled)', async () => {
    const fake = fakeHost(() => undefined, {
      range: () => {
        fake.closing = true;
        throw new AppError('DEPENDENCY.DOWN');
      },
    });
    expect(await consume(fake, [delivery(7)], { filter: 'rl.log.run.>', from: 4, to: 6 })).toBe(false);
    expect(sent).toEqual([]);
  });

  it('Review finding: the position the lease keeps (handedThrough) never passes a commit left unsettled while stopping, nor follows what a stop left unread', async () => {
    const fake = stoppingAtCommit2();
    // Delivered in order as deliveries 11-13 of the durable, which had delivered through 10 (stream 0) when it opened.
    const numbered = [1, 2, 3].map((seq) => Object.assign(delivery(seq), { info: { deliveryCount: 1, deliverySequence: 10 + seq } }) as JsMsg);
    const consumer = new BatchConsumer(fake.host, (() => undefined) as never, { ...options(), delivered: { filter: 'rl.log.run.>', created: 'c1', consumerSeq: 10, streamSeq: 0 } });
    await consumer.start(pulled(numbered));
    for (let done = 0; done < fake.settledWork.length; done++) await fake.settledWork[done];
    // 1 was handed over, 2 was left unsettled: the next holder must start after 1, not after 3.
    expect(consumer.handedThrough()).toEqual({ created: 'c1', consumer_seq: 11, stream_seq: 1 });
  });
});
