import { Controller, DynamicModule, Module } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { aggregateRef, ensureLogStream, EventLog, LOG_STREAM, StoredEvent } from '@runledger/event-log';
import { TEST_ADMIN, useNatsServer, waitUntil } from '@runledger/testing';
import { bootstrapService, ServiceHandle } from './bootstrap';
import { DeferredSettlement, LogConsumer } from './handlers';
import { MessagingModule } from './messaging.module';
import { ServiceRuntime } from './runtime';

const batches: number[][] = [];
// Far longer than the test: nothing the server redelivers after ack_wait can explain what the test sees.
const ACK_WAIT_MS = 10 * 60_000;

@Controller()
class CountingProjection {
  @LogConsumer('rl.log.batchack.*', { durable: 'batch-ack', batch: 16, lingerMs: 50, ackWaitMs: ACK_WAIT_MS })
  async onBatch(@Payload() events: StoredEvent[]) {
    batches.push(events.map((e) => (e.data as { n: number }).n));
  }
}

const deferredSeen: number[] = [];
let releaseDeferred: () => void = () => undefined;
const deferred = new Promise<void>((resolve) => (releaseDeferred = resolve));

@Controller()
class DeferringProjection {
  @LogConsumer('rl.log.batchdefer.*', { durable: 'batch-defer', batch: 16, ackWaitMs: ACK_WAIT_MS })
  async onBatch(@Payload() events: StoredEvent[]): Promise<DeferredSettlement> {
    deferredSeen.push(...events.map((e) => (e.data as { n: number }).n));
    return { settled: deferred };
  }
}

// Issue 22 review: a batch whose work is deferred, then a poison message; its term must wait for that work.
const gateSeen: number[] = [];
let openGate: () => void = () => undefined;
const gate = new Promise<void>((resolve) => (openGate = resolve));

@Controller()
class GatedProjection {
  @LogConsumer('rl.log.batchpoison.*', { durable: 'batch-poison', batch: 16, ackWaitMs: ACK_WAIT_MS })
  async onBatch(@Payload() events: StoredEvent[]): Promise<DeferredSettlement> {
    gateSeen.push(...events.map((e) => (e.data as { n: number }).n));
    return { settled: gate };
  }
}

// Issue 22 review: the first deferred settlement fails once; the consumer must not stop acking for good.
const failingSeen: number[] = [];
let failures = 1;

@Controller()
class FailingOnceProjection {
  @LogConsumer('rl.log.batchfail.*', { durable: 'batch-fail', batch: 16, ackWaitMs: ACK_WAIT_MS })
  async onBatch(@Payload() events: StoredEvent[]): Promise<DeferredSettlement> {
    failingSeen.push(...events.map((e) => (e.data as { n: number }).n));
    return { settled: failures-- > 0 ? Promise.reject(new Error('row not written')) : Promise.resolve() };
  }
}

@Module({})
class ProjectionModule {
  static forRuntime(runtime: ServiceRuntime): DynamicModule {
    return { module: ProjectionModule, imports: [MessagingModule.forRuntime(runtime)], controllers: [CountingProjection, DeferringProjection, GatedProjection, FailingOnceProjection] };
  }
}

jest.setTimeout(120_000);

describe('Issue 22 a batch consumer settles its deliveries in log order (one ack per batch on an ack-all durable), once its batch\'s deferred work is durable', () => {
  const nats = useNatsServer();
  const start = (): Promise<ServiceHandle> => bootstrapService('projection', (rt) => ProjectionModule.forRuntime(rt), { natsUrl: nats.server.url, httpPort: 0, identity: { creds: nats.server.creds[TEST_ADMIN].file } });

  /** Appends commits 1..n, runs the projection until it handled them all, and returns the acks it published. */
  async function handleAll(ackPolicy: AckPolicy, n: number): Promise<{ acks: number; pending: number; ackFloor: number; lastSeq: number }> {
    batches.length = 0;
    const js = jetstream(nats.nc);
    const jsm = await jetstreamManager(nats.nc);
    await ensureLogStream(jsm);
    await jsm.consumers.delete(LOG_STREAM, 'batch-ack').catch(() => undefined);
    await jsm.consumers.add(LOG_STREAM, {
      durable_name: 'batch-ack', filter_subject: 'rl.log.batchack.*', ack_policy: ackPolicy, deliver_policy: DeliverPolicy.New,
      max_deliver: -1, ack_wait: ACK_WAIT_MS * 1_000_000, max_ack_pending: 64,
    });
    const log = new EventLog(js, jsm, { producer: 'test', clock: { now: () => new Date() } });
    let lastSeq = 0;
    for (let i = 1; i <= n; i++) lastSeq = (await log.append(aggregateRef('batchack', `a${i % 3}`), [{ type: 'Plain', data: { n: i } }], { commandId: `${ackPolicy}-${i}` })).version;
    let acks = 0;
    const tap = nats.nc.subscribe(`$JS.ACK.${LOG_STREAM}.batch-ack.>`, { callback: () => void acks++ });
    const service = await start();
    try {
      await waitUntil(() => batches.flat().length >= n, { timeoutMs: 60_000, description: 'every commit handled' });
      await waitUntil(async () => (await jsm.consumers.info(LOG_STREAM, 'batch-ack')).num_ack_pending === 0, { timeoutMs: 60_000, description: 'every delivery settled' });
      await nats.nc.flush();
      const info = await jsm.consumers.info(LOG_STREAM, 'batch-ack');
      return { acks, pending: info.num_pending + info.num_ack_pending, ackFloor: info.ack_floor.stream_seq, lastSeq };
    } finally {
      tap.unsubscribe();
      await service.stop();
    }
  }

  it('Issue 22: on an ack-all durable (the ledger\'s, acked by an identity without response permissions) one ack per batch, of its highest sequence, settles it', async () => {
    const r = await handleAll(AckPolicy.All, 8);
    expect(batches.flat()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(batches.length).toBeLessThan(8);
    expect(r.acks).toBe(batches.length);
    expect(r).toMatchObject({ pending: 0, ackFloor: r.lastSeq });
  });

  it('on an explicit-ack durable, as the bootstrap creates them: every delivery is acked', async () => {
    const r = await handleAll(AckPolicy.Explicit, 8);
    expect(batches.flat()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(r.acks).toBe(8);
    expect(r).toMatchObject({ pending: 0, ackFloor: r.lastSeq });
  });
  it('a batch whose handler deferred part of its work (DeferredSettlement) is acked only once that work is done', async () => {
    const js = jetstream(nats.nc);
    const jsm = await jetstreamManager(nats.nc);
    await ensureLogStream(jsm);
    await jsm.consumers.delete(LOG_STREAM, 'batch-defer').catch(() => undefined);
    await jsm.consumers.add(LOG_STREAM, {
      durable_name: 'batch-defer', filter_subject: 'rl.log.batchdefer.*', ack_policy: AckPolicy.All, deliver_policy: DeliverPolicy.New,
      max_deliver: -1, ack_wait: ACK_WAIT_MS * 1_000_000, max_ack_pending: 64,
    });
    const log = new EventLog(js, jsm, { producer: 'test', clock: { now: () => new Date() } });
    for (const n of [1, 2, 3]) await log.append(aggregateRef('batchdefer', 'a'), [{ type: 'Plain', data: { n } }], { commandId: `defer-${n}` });
    const service = await start();
    try {
      await waitUntil(() => deferredSeen.length >= 3, { timeoutMs: 60_000, description: 'every commit handled' });
      await nats.nc.flush();
      expect((await jsm.consumers.info(LOG_STREAM, 'batch-defer')).num_ack_pending).toBe(3);
      releaseDeferred();
      await waitUntil(async () => (await jsm.consumers.info(LOG_STREAM, 'batch-defer')).num_ack_pending === 0, { timeoutMs: 60_000, description: 'the batch acked once its deferred work is done' });
    } finally {
      await service.stop();
    }
  });

  it('Issue 22 review: a durable the service creates for a batch consumer acks explicitly', async () => {
    const jsm = await jetstreamManager(nats.nc);
    await ensureLogStream(jsm);
    await jsm.consumers.delete(LOG_STREAM, 'batch-fail').catch(() => undefined);
    const service = await start();
    try {
      expect((await jsm.consumers.info(LOG_STREAM, 'batch-fail')).config.ack_policy).toBe(AckPolicy.Explicit);
    } finally {
      await service.stop();
    }
  });

  it('Issue 22 review: a poison message after a batch whose work is deferred is terminated only after that batch is acked (nothing settled early)', async () => {
    const js = jetstream(nats.nc);
    const jsm = await jetstreamManager(nats.nc);
    await ensureLogStream(jsm);
    await jsm.consumers.delete(LOG_STREAM, 'batch-poison').catch(() => undefined);
    // Ack-all, where a term settles everything before it too: the strictest case for the order.
    await jsm.consumers.add(LOG_STREAM, {
      durable_name: 'batch-poison', filter_subject: 'rl.log.batchpoison.*', ack_policy: AckPolicy.All, deliver_policy: DeliverPolicy.New,
      max_deliver: -1, ack_wait: ACK_WAIT_MS * 1_000_000, max_ack_pending: 64,
    });
    const log = new EventLog(js, jsm, { producer: 'test', clock: { now: () => new Date() } });
    const first = (await log.append(aggregateRef('batchpoison', 'a'), [{ type: 'Plain', data: { n: 1 } }], { commandId: 'poison-1' })).version;
    const notEvents = new TextEncoder().encode('not events');
    // One poison message in the deferred batch itself (delivered with it), one in a later batch.
    const inBatch = (await js.publish('rl.log.batchpoison.b', notEvents)).seq;
    const deadLettered = async (seq: number) => (await log.read(aggregateRef('deadletter', 'batch-poison'))).some((e) => (e.data as { stream_seq: number }).stream_seq === seq);
    const service = await start();
    try {
      await waitUntil(() => gateSeen.length >= 1, { timeoutMs: 60_000, description: 'the deferred batch handled' });
      const poison = (await js.publish('rl.log.batchpoison.b', notEvents)).seq;
      await waitUntil(async () => (await deadLettered(inBatch)) && deadLettered(poison), { timeoutMs: 60_000, description: 'the poison messages dead-lettered' });
      await nats.nc.flush();
      const held = await jsm.consumers.info(LOG_STREAM, 'batch-poison');
      // Their terms wait for the deferred batch: nothing is settled yet (an early term would have settled the batch too).
      expect(held.ack_floor.stream_seq).toBeLessThan(first);
      expect(held.num_ack_pending).toBe(3);
      openGate();
      await waitUntil(async () => (await jsm.consumers.info(LOG_STREAM, 'batch-poison')).num_ack_pending === 0, { timeoutMs: 60_000, description: 'both settled once the deferred work is done' });
      const settled = await jsm.consumers.info(LOG_STREAM, 'batch-poison');
      expect(settled.ack_floor.stream_seq).toBe(poison);
      expect(gateSeen).toEqual([1]);
    } finally {
      await service.stop();
    }
  });

  it('Issue 22 review: a deferred settlement that fails does not stop the acks for good: the consumer handles again from the ack floor and acks later deliveries', async () => {
    const js = jetstream(nats.nc);
    const jsm = await jetstreamManager(nats.nc);
    await ensureLogStream(jsm);
    await jsm.consumers.delete(LOG_STREAM, 'batch-fail').catch(() => undefined);
    const log = new EventLog(js, jsm, { producer: 'test', clock: { now: () => new Date() } });
    const service = await start();
    try {
      const first = (await log.append(aggregateRef('batchfail', 'a'), [{ type: 'Plain', data: { n: 1 } }], { commandId: 'fail-1' })).version;
      // Handled, its settlement failed, then handled again from the ack floor (what was delivered and not acked).
      await waitUntil(() => failingSeen.filter((n) => n === 1).length >= 2, { timeoutMs: 60_000, description: 'the failed batch handled again' });
      const second = (await log.append(aggregateRef('batchfail', 'a'), [{ type: 'Plain', data: { n: 2 } }], { commandId: 'fail-2' })).version;
      await waitUntil(async () => {
        const info = await jsm.consumers.info(LOG_STREAM, 'batch-fail');
        return info.delivered.stream_seq >= second && info.num_ack_pending === 1;
      }, { timeoutMs: 60_000, description: 'the later delivery acked' });
      const info = await jsm.consumers.info(LOG_STREAM, 'batch-fail');
      // The failed delivery stays unacked (the server redelivers it after ack_wait); nothing after it waits on it.
      expect(info.ack_floor.stream_seq).toBeLessThan(first);
      expect(failingSeen).toEqual([1, 1, 2]);
    } finally {
      await service.stop();
    }
  });
});
