import { connect, NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, JetStreamManager } from '@nats-io/jetstream';
import { FixedClock } from '@runledger/kernel';
import { startNatsServer, NatsServerHandle } from '@runledger/testing';
import { aggregateRef, EventCodec, EventEnvelope, ensureLogStream, EventLog, LOG_STREAM } from './index';

jest.setTimeout(60_000);

/** A codec that hides `data.secret` (base64 under `hidden`): enough to see where the log applies it. */
const hiding: EventCodec = {
  seal: (e: EventEnvelope) => {
    const d = e.data as { secret?: string };
    if (typeof d?.secret !== 'string') return e;
    const { secret, ...rest } = d;
    return { ...e, data: { ...rest, hidden: Buffer.from(secret).toString('base64') } };
  },
  open: <E extends EventEnvelope>(e: E): E => {
    const d = e.data as { hidden?: string };
    if (typeof d?.hidden !== 'string') return e;
    const { hidden, ...rest } = d;
    return { ...e, data: { ...rest, secret: Buffer.from(hidden, 'base64').toString() } };
  },
};

describe('Issue 9 erasure: the EventLog applies its codec on every write and every read path', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let log: EventLog;

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect(server.connectOptions());
    jsm = await jetstreamManager(nc);
    await ensureLogStream(jsm);
    log = new EventLog(jetstream(nc), jsm, { producer: 'spec', clock: new FixedClock(new Date('2026-01-01T00:00:00Z')), codec: hiding });
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  it('Issue 9 erasure: the stream holds sealed data; append, read (short and long aggregates), first, replay and a duplicate append give it back opened', async () => {
    const short = aggregateRef('run', 'codec-short');
    const long = aggregateRef('run', 'codec-long');
    const appended = await log.append(short, [{ type: 'A', data: { n: 0, secret: 'alpha' } }], { commandId: 'short', expectedVersion: 0 });
    expect(appended.events[0].data).toEqual({ n: 0, secret: 'alpha' });
    // Longer than the direct-get prefix of a read: the ordered consumer path opens too.
    await log.append(long, Array.from({ length: 40 }, (_, n) => ({ type: 'A', data: { n, secret: `s${n}` } })), { commandId: 'long', expectedVersion: 0 });
    const raw = await jsm.streams.getMessage(LOG_STREAM, { seq: appended.version });
    expect(new TextDecoder().decode(raw!.data)).not.toContain('alpha');
    expect((await log.read(short)).map((e) => e.data)).toEqual([{ n: 0, secret: 'alpha' }]);
    expect((await log.read(long)).map((e) => (e.data as { secret: string }).secret)).toEqual(Array.from({ length: 40 }, (_, n) => `s${n}`));
    expect((await log.first(long))?.data).toEqual({ n: 0, secret: 's0' });
    const { state } = await log.replay<string[]>((acc, e) => [...acc, (e.data as { secret: string }).secret], []);
    expect(state).toHaveLength(41);
    expect(state).toContain('alpha');
    const retried = await log.append(short, [{ type: 'A', data: { n: 0, secret: 'alpha' } }], { commandId: 'short', expectedVersion: 0 });
    expect(retried.duplicate).toBe(true);
    expect(retried.events[0].data).toEqual({ n: 0, secret: 'alpha' });
  });
});
