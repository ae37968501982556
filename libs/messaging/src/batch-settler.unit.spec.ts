import type { JsMsg } from '@nats-io/jetstream';
import { BatchSettler, settleInOrder } from './batch-settler';

const sent: string[] = [];
const msg = (seq: number) => ({ seq, ack: () => void sent.push(`ack ${seq}`) }) as unknown as JsMsg;
const quiet = { error: () => undefined };

describe('Issue 22 settling a batch consumer\'s deliveries', () => {
  beforeEach(() => (sent.length = 0));

  it('Issue 22: on an ack-all durable one ack, of the highest sequence, settles a batch; on an explicit one each delivery is acked in log order', () => {
    settleInOrder([msg(3), msg(1), msg(2)], true);
    expect(sent).toEqual(['ack 3']);
    sent.length = 0;
    settleInOrder([msg(3), msg(1), msg(2)]);
    expect(sent).toEqual(['ack 1', 'ack 2', 'ack 3']);
  });

  it('Issue 22: on an ack-all durable a nak (a poison message whose dead letter was not recorded) stops the acks after it and starts a pass from the ack floor: a later ack would settle it unhandled', async () => {
    let broken = 0;
    const settler = new BatchSettler('d', quiet, () => void broken++, true);
    void settler.after([msg(1), msg(2)], undefined);
    void settler.inTurn(() => void sent.push('nak 3'), true);
    await settler.after([msg(4)], undefined);
    expect(sent).toEqual(['ack 2', 'nak 3']);
    expect({ broken, stopped: settler.broken }).toEqual({ broken: 1, stopped: true });
  });

  it('on an explicit-ack durable a nak settles only itself: later deliveries are still acked', async () => {
    const settler = new BatchSettler('d', quiet, () => { throw new Error('not broken'); });
    void settler.after([msg(1)], undefined);
    void settler.inTurn(() => void sent.push('nak 2'), true);
    await settler.after([msg(3)], undefined);
    expect(sent).toEqual(['ack 1', 'nak 2', 'ack 3']);
    expect(settler.broken).toBe(false);
  });

  it('a term waits for the deferred work of the batches before it (a term on an ack-all durable settles them too)', async () => {
    let release: () => void = () => undefined;
    const settler = new BatchSettler('d', quiet, () => undefined, true);
    void settler.after([msg(1)], { settled: new Promise<void>((resolve) => (release = resolve)) });
    const termed = settler.inTurn(() => void sent.push('term 2'));
    await Promise.resolve();
    expect(sent).toEqual([]);
    release();
    await termed;
    expect(sent).toEqual(['ack 1', 'term 2']);
  });

  it('Issue 22 deferred work that never settles counts as failed after stallMs: the acks behind it stop and the consumer starts again from the ack floor, instead of the ack-all durable redelivering its tail for ever', async () => {
    const errors: object[] = [];
    let broken = 0;
    const settler = new BatchSettler('d', { error: (e) => void errors.push(e) }, () => void broken++, true, 20);
    void settler.after([msg(1)], { settled: new Promise<void>(() => undefined) });
    const termed = settler.inTurn(() => void sent.push('term 2'));
    await termed;
    expect(sent).toEqual([]);
    expect({ broken, stopped: settler.broken }).toEqual({ broken: 1, stopped: true });
    expect(errors).toEqual([expect.objectContaining({ msg: 'acks stop, consuming again from the ack floor', why: 'deferred work of a batch failed: it did not settle within 20 ms' })]);
  });

  it('deferred work that settles within stallMs is waited for, however long', async () => {
    const settler = new BatchSettler('d', quiet, () => { throw new Error('not broken'); }, true, 60_000);
    await settler.after([msg(1)], { settled: new Promise<void>((resolve) => setTimeout(resolve, 30)) });
    expect(sent).toEqual(['ack 1']);
  });
});
