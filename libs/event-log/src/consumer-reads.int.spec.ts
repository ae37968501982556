import { connect, type NatsConnection } from '@nats-io/transport-node';
import { AckPolicy, jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { FixedClock } from '@runledger/kernel';
import { startNatsServer, type NatsServerHandle } from '@runledger/testing';
import { readByConsumer } from './consumer-reads';
import { aggregateRef, encodeEnvelope, ensureLogStream, type EventEnvelope, EventLog, LOG_STREAM, type StoredEvent, writerHeaders } from './index';

// Generous: the suite must hold while the machine is busy with other loads (waits are on conditions, not time).
jest.setTimeout(60_000);

const clock = new FixedClock(new Date('2026-01-01T00:00:00Z'));
const positions = (events: StoredEvent[]) => events.map((e) => [e.seq, e.index, e.subject, e.type, e.metadata.event_id, JSON.stringify(e.data)]);

async function consumerNames(jsm: JetStreamManager, stream = LOG_STREAM): Promise<string[]> {
  const names: string[] = [];
  for await (const c of jsm.consumers.list(stream)) names.push(c.name);
  return names;
}

describe('Issue 22 the admin reads a range of the log through one consumer; every reader still creates none', () => {
  let server: NatsServerHandle;
  let admin: NatsConnection;
  let reader: NatsConnection;
  let jsm: JetStreamManager;
  let directLog: EventLog;

  beforeAll(async () => {
    server = await startNatsServer();
    admin = await connect(server.connectOptions('admin'));
    reader = await connect(server.connectOptions('operator'));
    jsm = await jetstreamManager(admin);
    await ensureLogStream(jsm);
    directLog = new EventLog(jetstream(admin), jsm, { producer: 'spec', clock });
    // More commits than one pull answers (1,024), of several aggregates, some of several events.
    for (let i = 0; i < 1_300; i += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, j) => directLog.append(aggregateRef('run', `r${(i + j) % 37}`), Array.from({ length: 1 + ((i + j) % 3) }, (_, k) => ({ type: 'N', data: { n: i + j, k } })), { commandId: `c-${i + j}` })));
    }
  });
  afterAll(async () => {
    await reader?.close();
    await admin?.close();
    await server?.stop();
  });

  it('the whole-log replay through a consumer hands out what the direct gets hand out (same events, positions and order), and the consumer is gone after', async () => {
    const fold = (acc: StoredEvent[], e: StoredEvent) => (acc.push(e), acc);
    const expected = (await directLog.replay(fold, [])).state;
    const consumerLog = new EventLog(jetstream(admin), jsm, { producer: 'spec', clock, mayCreateConsumers: true });
    let during: string[] = [];
    const seen: StoredEvent[] = [];
    await consumerLog.messages('rl.log.>', 1, expected.at(-1)!.seq, async (m) => {
      if (!seen.length) during = await consumerNames(jsm);
      seen.push({ seq: m.seq } as StoredEvent);
    });
    // It was read through a consumer of its own (an ephemeral one, not the direct gets' fallback) ...
    expect(during).toHaveLength(1);
    expect(during[0]).toMatch(/^rl_read_/);
    // The consumer itself handed out the whole range (more than one pull's worth), in order, a handler's promise
    // holding the next message: nothing was left to the direct gets.
    const last = expected.at(-1)!.seq;
    const throughConsumer: number[] = [];
    const handler = (m: { seq: number }) => (m.seq % 2 ? Promise.resolve().then(() => void throughConsumer.push(m.seq)) : void throughConsumer.push(m.seq));
    expect(await readByConsumer(jsm, LOG_STREAM, 1, last, handler)).toBe(last + 1);
    expect(throughConsumer).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    const replayed = (await consumerLog.replay(fold, [])).state;
    expect(expected.length).toBeGreaterThan(2_000);
    expect(positions(replayed)).toEqual(positions(expected));
    // ... removed once read: no consumer stays on the log.
    expect(await consumerNames(jsm)).toEqual([]);
  });

  it('a reader (operator) told it may create consumers is refused by the server, creates none and reads everything by direct gets', async () => {
    const readerJsm = await jetstreamManager(reader);
    // The refusal that stays: a reader cannot create a consumer on the log, not even an ephemeral pull one.
    await expect(readerJsm.consumers.add(LOG_STREAM, { name: 'reader_try', ack_policy: AckPolicy.None })).rejects.toThrow(/permission/i);
    const fold = (acc: StoredEvent[], e: StoredEvent) => (acc.push(e), acc);
    const expected = (await directLog.replay(fold, [])).state;
    const readerLog = new EventLog(jetstream(reader), readerJsm, { producer: 'spec', clock, mayCreateConsumers: true });
    expect(positions((await readerLog.replay(fold, [])).state)).toEqual(positions(expected));
    expect(await consumerNames(jsm)).toEqual([]);
  });

  it('a sequence the stream cannot hand out is still LOG.UNREADABLE through the consumer, and a handler that fails, or never settles, fails the read', async () => {
    // A stream that allows a message delete stands for a store file edited on disk (nats-server then has no message there).
    await jsm.streams.add({ name: 'DAMAGED22', subjects: ['damaged22.>'], allow_direct: true });
    const js = jetstream(admin);
    for (let i = 1; i <= 5; i++) await js.publish(`damaged22.${i}`, encodeEnvelope({ type: 'A', data: { i }, metadata: {} } as unknown as EventEnvelope));
    const damaged = new EventLog(js, jsm, { producer: 'spec', clock, stream: 'DAMAGED22', mayCreateConsumers: true });
    await expect(damaged.messages('damaged22.>', 1, 5, (m) => (m.seq === 2 ? Promise.reject(new Error('handler failed')) : undefined))).rejects.toThrow('handler failed');
    await jsm.streams.deleteMessage('DAMAGED22', 3);
    const seen: number[] = [];
    await expect(damaged.messages('damaged22.>', 1, 5, (m) => void seen.push(m.seq))).rejects.toMatchObject({ code: 'LOG.UNREADABLE', seq: 3, retryable: false });
    expect(seen).toEqual([1, 2]);
    expect(await consumerNames(jsm, 'DAMAGED22')).toEqual([]);
    // A handler that never settles holds the read no longer than a direct-get read waits for an answer: it fails,
    // retryable, and leaves no consumer (review finding: it hung for good).
    const never = await readByConsumer(jsm, 'DAMAGED22', 1, 2, () => new Promise<void>(() => undefined), 3_000).catch((err: unknown) => err);
    expect(never).toMatchObject({ code: 'DEPENDENCY.DOWN', retryable: true });
    expect(await consumerNames(jsm, 'DAMAGED22')).toEqual([]);
    await jsm.streams.delete('DAMAGED22');
  });

  it('messages the server itself stored on the log (an API answer, a direct get\'s copy) are skipped through the consumer exactly as by direct gets, each named as no writer\'s', async () => {
    const from = (await jsm.streams.info(LOG_STREAM)).state.last_seq + 1;
    const target = aggregateRef('run', 'foreign-in-range');
    const stored = async (api: string, body: string) => {
      const before = (await jsm.streams.info(LOG_STREAM)).state.last_seq;
      admin.publish(api, body, { reply: target.subject });
      for (;;) {
        const now = (await jsm.streams.info(LOG_STREAM)).state.last_seq;
        if (now > before) return now;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const answer = await stored(`$JS.API.STREAM.INFO.${LOG_STREAM}`, '');
    // A copy of a message with the writer's header from a stream of the insider's own (a log message's msgID would
    // have the copy refused as a duplicate within the log's window).
    await jsm.streams.add({ name: 'SIDE22', subjects: ['side22.>'], allow_direct: true });
    const side = await jetstream(admin).publish('side22.x', encodeEnvelope({ type: 'Forged', data: {}, metadata: { event_id: 'f-1', stream_id: target.id, schema_version: 1, contract_version: 'v1', producer: 'spec', recorded_at: '2026-01-01T00:00:00.000Z' } }), { headers: writerHeaders('Forged') });
    const copy = await stored('$JS.API.DIRECT.GET.SIDE22', JSON.stringify({ seq: side.seq }));
    await directLog.append(target, [{ type: 'After', data: {} }], { commandId: 'after-foreign' });
    const to = (await jsm.streams.info(LOG_STREAM)).state.last_seq;
    const read = async (log: EventLog) => {
      const skipped: Array<[number, string]> = [];
      const events = await log.range('rl.log.>', from, to, (m, err) => void skipped.push([m.seq, (err as Error).message]));
      return { events: positions(events), skipped };
    };
    const byConsumer = await read(new EventLog(jetstream(admin), jsm, { producer: 'spec', clock, mayCreateConsumers: true }));
    expect(byConsumer).toEqual(await read(directLog));
    expect(byConsumer.events.map((e) => e[3])).toEqual(['After']);
    expect(byConsumer.skipped).toEqual([[answer, expect.stringContaining("no writer's header")], [copy, expect.stringContaining(`copy of message ${side.seq} of stream SIDE22`)]]);
  });
});
