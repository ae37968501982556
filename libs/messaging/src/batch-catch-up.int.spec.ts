import { Controller, DynamicModule, Module } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import { aggregateRef, ensureLogStream, EventLog, LOG_STREAM, messageEvents, StoredEvent } from '@runledger/event-log';
import { TEST_ADMIN, useNatsServer, waitUntil } from '@runledger/testing';
import { bootstrapService, ServiceHandle } from './bootstrap';
import { LogConsumer } from './handlers';
import { MessagingModule } from './messaging.module';
import { ServiceRuntime } from './runtime';

const seen: number[] = [];
// Far longer than the test: an event the server redelivered after ack_wait could not explain what the test sees.
const ACK_WAIT_MS = 10 * 60_000;

@Controller()
class OrderedProjection {
  @LogConsumer('rl.log.catchup.*', { durable: 'catch-up', batch: 16, ackWaitMs: ACK_WAIT_MS })
  async onBatch(@Payload() events: StoredEvent[]) {
    for (const e of events) if (!seen.includes((e.data as { n: number }).n)) seen.push((e.data as { n: number }).n);
  }
}

const poisonSeen: number[] = [];

@Controller()
class PoisonedProjection {
  @LogConsumer('rl.log.catchpoison.*', { durable: 'catch-up-poison', batch: 16, ackWaitMs: ACK_WAIT_MS })
  async onBatch(@Payload() events: StoredEvent[]) {
    poisonSeen.push(...events.map((e) => (e.data as { n: number }).n));
  }
}

const takenSeen: number[] = [];

@Controller()
class TakenFromProjection {
  @LogConsumer('rl.log.catchtaken.*', { durable: 'catch-up-taken', batch: 16, ackWaitMs: ACK_WAIT_MS })
  async onBatch(@Payload() events: StoredEvent[]) {
    for (const e of events) if (!takenSeen.includes((e.data as { n: number }).n)) takenSeen.push((e.data as { n: number }).n);
  }
}

@Module({})
class ProjectionModule {
  static forRuntime(runtime: ServiceRuntime): DynamicModule {
    return { module: ProjectionModule, imports: [MessagingModule.forRuntime(runtime)], controllers: [OrderedProjection, PoisonedProjection, TakenFromProjection] };
  }
}

jest.setTimeout(120_000);

describe('Batch consumer after its holder died (Issue 12 ack-all batches, Issue 10 nothing lost)', () => {
  const nats = useNatsServer();
  /** The log stream and a fresh ack-all durable on `filter`, created before any holder runs. */
  async function ackAllDurable(durable: string, filter: string): Promise<JetStreamManager> {
    const jsm = await jetstreamManager(nats.nc);
    await ensureLogStream(jsm);
    await jsm.consumers.delete(LOG_STREAM, durable).catch(() => undefined);
    await jsm.consumers.add(LOG_STREAM, { durable_name: durable, filter_subject: filter, ack_policy: AckPolicy.All, deliver_policy: DeliverPolicy.All, max_deliver: -1, ack_wait: ACK_WAIT_MS * 1_000_000, max_ack_pending: 64 });
    return jsm;
  }
  const start = (): Promise<ServiceHandle> => bootstrapService('projection', (rt) => ProjectionModule.forRuntime(rt), { natsUrl: nats.server.url, httpPort: 0, identity: { creds: nats.server.creds[TEST_ADMIN].file } });

  it('events a dead holder was handed and never acked are handled first, in log order, not lost behind newer acks', async () => {
    const js = jetstream(nats.nc);
    // An ack-all durable (as issue 22's test stacks made them; the strictest case: an ack settles what is before it), created before any holder runs.
    const jsm = await ackAllDurable('catch-up', 'rl.log.catchup.*');
    const log = new EventLog(js, jsm, { producer: 'test', clock: { now: () => new Date() } });
    const ref = aggregateRef('catchup', 'a');
    for (const n of [1, 2, 3]) await log.append(ref, [{ type: 'Plain', data: { n } }], { commandId: `first-${n}` });
    // A holder is handed the commits of 1–3 and dies before acking them; then 4–5 arrive, one commit of two events.
    const taken = await (await js.consumers.get(LOG_STREAM, 'catch-up')).fetch({ max_messages: 3, expires: 10_000 });
    let handed = 0;
    for await (const m of taken) handed += m.seq > 0 ? 1 : 0;
    expect(handed).toBe(3);
    await log.append(ref, [4, 5].map((n) => ({ type: 'Plain', data: { n } })), { commandId: 'second' });

    // The next holder: without reading 1–3 itself, it would get 4–5 first and its ack of 5 would settle 1–3 unhandled.
    const service = await start();
    try {
      await waitUntil(() => seen.length >= 5, { timeoutMs: 90_000, description: 'all five events handled' });
      expect(seen).toEqual([1, 2, 3, 4, 5]);
    } finally {
      await service.stop(); // before the server stops (useNatsServer's afterAll)
    }
  });

  it('Issue 22 review: an unreadable message a dead holder was handed is dead-lettered by the next holder\'s catch-up before an ack past it settles it', async () => {
    const js = jetstream(nats.nc);
    const jsm = await ackAllDurable('catch-up-poison', 'rl.log.catchpoison.*');
    const log = new EventLog(js, jsm, { producer: 'test', clock: { now: () => new Date() } });
    await log.append(aggregateRef('catchpoison', 'a'), [{ type: 'Plain', data: { n: 1 } }], { commandId: 'poison-first' });
    const unreadable = (await js.publish('rl.log.catchpoison.b', new TextEncoder().encode('not events'))).seq;
    // A holder is handed both and dies before dead-lettering the unreadable one; then a later commit arrives.
    const taken = await (await js.consumers.get(LOG_STREAM, 'catch-up-poison')).fetch({ max_messages: 2, expires: 10_000 });
    let handed = 0;
    for await (const m of taken) handed += m.seq > 0 ? 1 : 0;
    expect(handed).toBe(2);
    const later = (await log.append(aggregateRef('catchpoison', 'a'), [{ type: 'Plain', data: { n: 2 } }], { commandId: 'poison-later' })).version;

    const service = await start();
    try {
      await waitUntil(async () => (await jsm.consumers.info(LOG_STREAM, 'catch-up-poison')).ack_floor.stream_seq >= later, { timeoutMs: 90_000, description: 'the later commit acked' });
      // That ack settled the unreadable message too: its dead letter must be on the log (rl.deadletters.list reads it).
      const deadLetters = await log.read(aggregateRef('deadletter', 'catch-up-poison'));
      expect(deadLetters.map((e) => (e.data as { stream_seq: number; reason: string })).filter((d) => d.stream_seq === unreadable)).toEqual([expect.objectContaining({ reason: "no writer's message", error_code: 'LOG.FOREIGN_MESSAGE' })]);
      expect(poisonSeen).toEqual([1, 2]);
    } finally {
      await service.stop();
    }
  });

  it('Issue 9 completeness: events another puller holding the consumer\'s key takes from the durable while its holder runs are read back and handled in log order, not settled unhandled by the holder\'s next ack', async () => {
    const js = jetstream(nats.nc);
    const jsm = await ackAllDurable('catch-up-taken', 'rl.log.catchtaken.*');
    const log = new EventLog(js, jsm, { producer: 'test', clock: { now: () => new Date() } });
    const ref = aggregateRef('catchtaken', 'a');
    let n = 0;
    const appendNext = () => log.append(ref, [{ type: 'Plain', data: { n: ++n } }], { commandId: `taken-${n}` });
    const service = await start();
    try {
      await appendNext();
      await waitUntil(() => takenSeen.includes(1), { timeoutMs: 60_000, description: 'the holder consuming' });
      // A second puller on the durable: the server hands its pull requests their turn, so it gets one of the next commits.
      let taken: JsMsg | null | undefined;
      void (await js.consumers.get(LOG_STREAM, 'catch-up-taken')).next({ expires: 60_000 }).then((m) => (taken = m));
      await nats.nc.flush();
      await waitUntil(async () => {
        if (taken === undefined) await appendNext();
        return taken !== undefined;
      }, { timeoutMs: 60_000, description: 'the second puller handed a commit' });
      expect(taken?.seq).toBeGreaterThan(0);
      // It acks to hide it; then one more commit reaches the holder, whose ack (all) would settle the taken one with it.
      taken?.ack();
      await nats.nc.flush();
      const stolen = taken && (messageEvents(taken)[0].data as { n: number }).n;
      await appendNext();
      await waitUntil(() => takenSeen.includes(n), { timeoutMs: 60_000, description: 'the last commit handled' });
      expect(takenSeen).toContain(stolen);
      expect(takenSeen).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    } finally {
      await service.stop();
    }
  });
});
