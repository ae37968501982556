import { Controller, DynamicModule, Module, OnModuleDestroy } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { connect, NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { aggregateRef, LOG_STREAM, StoredEvent } from '@runledger/event-log';
import { startNatsServer, NatsServerHandle, TEST_ADMIN, waitUntil } from '@runledger/testing';
import { bootstrapService, ServiceHandle } from './bootstrap';
import { decodeReply, encodeJson } from './codec';
import { LogConsumer, RequestHandler } from './handlers';
import { MessagingModule } from './messaging.module';
import { ServiceRuntime } from './runtime';

/**
 * Work the handlers hold until the test lets it go: it is in flight exactly while the stop begins. `handled` also
 * records when the app starts closing (its providers' destroy hooks, which come before the connection closes).
 */
const gate: { entered: string[]; handled: string[]; release?: () => void; released?: Promise<void> } = { entered: [], handled: [] };
const hold = async (what: string) => {
  gate.entered.push(what);
  await gate.released;
  gate.handled.push(what);
};

@Controller()
class SlowController implements OnModuleDestroy {
  onModuleDestroy() {
    gate.handled.push('app closing');
  }

  @RequestHandler('slow.answer')
  async answer(@Payload() raw: { n: number }) {
    await hold(`request ${raw.n}`);
    return { answered: raw.n };
  }

  @LogConsumer('rl.log.slow.*', { durable: 'slow', maxDeliver: 4, ackWaitMs: 30_000 })
  async onEvent(@Payload() event: StoredEvent) {
    await hold(`event ${event.type}`);
  }
}

@Module({})
class SlowModule {
  static forRuntime(runtime: ServiceRuntime): DynamicModule {
    return { module: SlowModule, imports: [MessagingModule.forRuntime(runtime)], controllers: [SlowController] };
  }
}

jest.setTimeout(60_000);

/**
 * Issue 24, a rolling restart loses nothing: a service told to stop (SIGTERM) finishes the request it is answering and
 * the delivery it is handling before its connection closes, instead of leaving the caller to wait out its timeout and
 * the delivery to wait out ack_wait; it takes nothing new meanwhile.
 */
describe('Issue 24 graceful stop (RL_SHUTDOWN_DRAIN_MS)', () => {
  let server: NatsServerHandle;
  let service: ServiceHandle;
  let nc: NatsConnection;

  beforeAll(async () => {
    server = await startNatsServer();
    service = await bootstrapService('slow', (rt) => SlowModule.forRuntime(rt), { natsUrl: server.url, httpPort: 0, identity: { creds: server.creds[TEST_ADMIN].file } });
    nc = await connect(server.connectOptions());
    gate.released = new Promise((resolve) => (gate.release = resolve));
  });
  afterAll(async () => {
    gate.release?.();
    await nc?.close();
    await service?.stop();
    await server?.stop();
  });

  it('Issue 24 a request and a delivery in flight when the stop begins are finished (answered, acked); a request after it is not taken; a second stop (signal) waits for the first', async () => {
    const inFlight = nc.request('slow.answer', encodeJson({ n: 1 }), { timeout: 30_000 });
    await service.runtime.log.append(aggregateRef('slow', 'a'), [{ type: 'Held', data: {} }], { commandId: 'held' });
    await waitUntil(() => gate.entered.length === 2, { timeoutMs: 20_000 });

    const stopped = service.stop();
    // A second signal (Ctrl-C of `npm start` sends SIGINT to the group, start.js then SIGTERM) waits for the same stop.
    let againDone = false;
    const again = service.stop().then(() => (againDone = true));
    // Once the stop has taken effect, nothing new is taken: with no other instance, a new request finds no responder.
    // (A request sent while the service's unsubscribe is on its way to the server may still be delivered and taken:
    // it is then finished like request 1, never dropped.)
    let late = 1;
    await waitUntil(async () => {
      const answer = await nc.request('slow.answer', encodeJson({ n: ++late }), { timeout: 2_000 }).then(() => 'answered', (err: Error) => err.message);
      return /no responders/i.test(answer);
    }, { timeoutMs: 20_000 });
    const refused = nc.request('slow.answer', encodeJson({ n: ++late }), { timeout: 2_000 }).then(() => 'answered', (err: Error) => err.message);
    expect(await refused).toMatch(/no responders/i);
    const takenAfterStop = gate.entered.filter((e) => /^request (\d+)$/.test(e) && e !== 'request 1');
    expect(takenAfterStop).toEqual(expect.not.arrayContaining([`request ${late - 1}`, `request ${late}`]));

    expect(againDone).toBe(false); // the work in flight holds the first stop: the second has not ended before it
    gate.release!();
    const reply = await inFlight;
    expect(decodeReply(reply.data, reply.headers)).toEqual({ ok: true, body: { answered: 1 } });
    await stopped;
    await again;
    // Finished before the app began to close (without the drain it closes at once, and the reply has nowhere to go).
    const closingAt = gate.handled.indexOf('app closing');
    expect(gate.handled.slice(0, closingAt).sort()).toEqual(['event Held', 'request 1', ...takenAfterStop].sort());
    expect(closingAt).toBe(gate.handled.length - 1);
    // The delivery was acked by the stopping instance: nothing waits for redelivery.
    const info = await (await jetstreamManager(nc)).consumers.info(LOG_STREAM, 'slow');
    expect({ pending: info.num_pending, unacked: info.num_ack_pending, redelivered: info.num_redelivered }).toEqual({ pending: 0, unacked: 0, redelivered: 0 });
  });
});
