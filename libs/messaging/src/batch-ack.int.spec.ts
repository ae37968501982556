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

@Module({})
class ProjectionModule {
  static forRuntime(runtime: ServiceRuntime): DynamicModule {
    return { module: ProjectionModule, imports: [MessagingModule.forRuntime(runtime)], controllers: [CountingProjection, DeferringProjection] };
  }
}

jest.setTimeout(120_000);

describe('Issue 22 a batch consumer settles a batch with one ack (fewer messages per request)', () => {
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

  it('on an ack-all consumer: one ack per batch settles every delivery in it', async () => {
    const r = await handleAll(AckPolicy.All, 8);
    expect(batches.flat()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(r.acks).toBe(batches.length);
    expect(r.acks).toBeLessThan(8);
    expect(r).toMatchObject({ pending: 0, ackFloor: r.lastSeq });
  });

  it('on a consumer created before with explicit acks (its policy cannot change): every delivery is still acked', async () => {
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
});
