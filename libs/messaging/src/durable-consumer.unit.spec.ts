import { AckPolicy, DeliverPolicy, type ConsumerInfo } from '@nats-io/jetstream';
import { catchUpRange } from './durable-consumer';

const CREATED = '2026-11-27T10:00:00Z';
/** A durable's info: delivered through stream sequence `to` (delivery `dseq`), acked through `acked`. */
const info = (to: number, dseq: number, acked: number, created = CREATED): ConsumerInfo =>
  ({
    created,
    config: { deliver_policy: DeliverPolicy.All, ack_policy: AckPolicy.All },
    delivered: { stream_seq: to, consumer_seq: dseq },
    ack_floor: { stream_seq: acked, consumer_seq: 0 },
    num_ack_pending: to > acked ? 1 : 0,
  }) as unknown as ConsumerInfo;

describe('Issue 9 completeness: what a new holder of a batch consumer reads from the log before any delivery', () => {
  it('what the previous holder was handed and never acked (as before the lease kept a position)', () => {
    expect(catchUpRange(info(40, 20, 30), null)).toEqual({ from: 31, to: 40 });
    expect(catchUpRange(info(40, 20, 40), null)).toBeNull();
  });

  it('deliveries after the position the lease recorded, acked by someone else while no holder ran, are read back', () => {
    // The last holder handed over through delivery 17 (stream 33); the durable delivered 3 more, all acked.
    expect(catchUpRange(info(40, 20, 40), { created: CREATED, consumer_seq: 17, stream_seq: 33 })).toEqual({ from: 34, to: 40 });
    // Unacked deliveries before that position are read back too.
    expect(catchUpRange(info(40, 20, 25), { created: CREATED, consumer_seq: 17, stream_seq: 33 })).toEqual({ from: 26, to: 40 });
  });

  it('nothing more when the durable delivered nothing after the recorded position, or the position is of a durable made again', () => {
    expect(catchUpRange(info(40, 20, 40), { created: CREATED, consumer_seq: 20, stream_seq: 40 })).toBeNull();
    expect(catchUpRange(info(40, 20, 40, '2026-11-27T11:00:00Z'), { created: CREATED, consumer_seq: 3, stream_seq: 5 })).toBeNull();
  });
});
