import { Controller, DynamicModule, Inject, Module } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { IsString, Length } from 'class-validator';
import { connect, NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { aggregateRef, LOG_STREAM, StoredEvent } from '@runledger/event-log';
import { AppError, JSON_BOUNDS } from '@runledger/kernel';
import { startNatsServer, NatsServerHandle, TEST_ADMIN, waitUntil } from '@runledger/testing';
import { bootstrapService, ServiceHandle } from './bootstrap';
import { decodeReply, encodeJson } from './codec';
import { LogConsumer, MAX_REQUEST_BYTES, RequestHandler } from './handlers';
import { MessagingModule, RUNTIME } from './messaging.module';
import { ServiceRuntime } from './runtime';
import { validateMessage } from './validation';

class EchoDto {
  @IsString() @Length(1, 10) word!: string;
}

const seen: Array<{ type: string; seq: number }> = [];
let failuresLeft = 2;
const batchSeen: string[] = [];
let batchFailuresLeft = 2;

@Controller()
class ProbeController {
  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  @RequestHandler('probe.echo')
  echo(@Payload() raw: unknown) {
    return { echoed: validateMessage(EchoDto, raw).word };
  }

  @RequestHandler('probe.crash')
  crash(): never {
    throw new Error('connect ECONNREFUSED 10.1.2.3:27017 SELECT secret FROM users');
  }

  /** A real bus fault: a request to a subject nobody serves (the client's own NoResponders error, as while a service restarts). */
  @RequestHandler('probe.bus-fault')
  async busFault(): Promise<never> {
    await this.runtime.nc.request('probe.nobody-listens', new Uint8Array(), { timeout: 5_000 });
    throw new Error('unreachable: nobody answers probe.nobody-listens');
  }

  @RequestHandler('probe.denied')
  denied(): never {
    throw new AppError('LANE.DENIED');
  }

  @LogConsumer('rl.log.probe.*', { durable: 'probe', maxDeliver: 4, ackWaitMs: 2_000 })
  async onEvent(@Payload() event: StoredEvent) {
    if (event.type === 'Flaky' && failuresLeft-- > 0) throw new Error('transient');
    if (event.type === 'Poison') throw new AppError('REQUEST.INVALID', 'cannot ever process this');
    seen.push({ type: event.type, seq: event.seq });
  }

  @LogConsumer('rl.log.ordered.*', { durable: 'ordered-batches', batch: 16, maxDeliver: 6, ackWaitMs: 2_000 })
  async onBatch(@Payload() events: StoredEvent[]) {
    // Whole batches fail while a 'Flaky' event is in them: the transport must go on one event at a time, in order.
    if (events.some((e) => e.type === 'Flaky') && batchFailuresLeft-- > 0) throw new Error('transient');
    for (const e of events) batchSeen.push((e.data as { n: number }).n.toString());
  }
}

@Module({})
class ProbeModule {
  static forRuntime(runtime: ServiceRuntime): DynamicModule {
    return { module: ProbeModule, imports: [MessagingModule.forRuntime(runtime)], controllers: [ProbeController] };
  }
}

// Generous: the suite must hold while the machine is busy with other loads (waits are on conditions, not time).
jest.setTimeout(60_000);

describe('RunledgerTransport (NestJS custom transport over NATS and JetStream)', () => {
  let server: NatsServerHandle;
  let service: ServiceHandle;
  let nc: NatsConnection;

  beforeAll(async () => {
    server = await startNatsServer();
    service = await bootstrapService('probe', (rt) => ProbeModule.forRuntime(rt), { natsUrl: server.url, httpPort: 0, identity: { creds: server.creds[TEST_ADMIN].file } });
    nc = await connect(server.connectOptions());
  });
  afterAll(async () => {
    await nc?.close();
    await service?.stop();
    await server?.stop();
  });

  const ask = async (subject: string, body: unknown, raw?: Uint8Array) => {
    const m = await nc.request(subject, raw ?? encodeJson(body), { timeout: 5_000 });
    return decodeReply(m.data, m.headers);
  };

  it('request/reply: a valid message is answered with the handler result', async () => {
    expect(await ask('probe.echo', { word: 'hi' })).toEqual({ ok: true, body: { echoed: 'hi' } });
  });

  it('Probe finding (log forgery): a request whose reply subject is no inbox is dropped unprocessed, so no answer is ever published into the log or a bucket on the asker\'s behalf', async () => {
    const forged = 'rl.log.run.decision.forged-by-reply';
    const landed: string[] = [];
    const watch = nc.subscribe('rl.log.run.decision.>', { callback: (_e, m) => void landed.push(m.subject) });
    await nc.flush();
    const before = (await ask('probe.echo', { word: 'first' })).ok;
    nc.publish('probe.echo', encodeJson({ word: 'forge' }), { reply: forged });
    nc.publish(`rl.health.probe`, new Uint8Array(), { reply: '$KV.rl_data_keys.user.planted' });
    // The service takes requests in order on one subscription: once a later one is answered, the forged one was seen.
    expect({ before, after: (await ask('probe.echo', { word: 'after' })).ok }).toEqual({ before: true, after: true });
    await ask('rl.health.probe', {});
    await nc.flush();
    watch.unsubscribe();
    expect(landed).toEqual([]);
  });

  it('class-validator at the boundary: an invalid or unknown field is REQUEST.INVALID with details', async () => {
    const r = await ask('probe.echo', { word: 'far-too-long-word', extra: 1 });
    expect(r).toMatchObject({ ok: false, error: { code: 'REQUEST.INVALID', retryable: false } });
    expect(JSON.stringify(r)).toMatch(/word/);
    expect(JSON.stringify(r)).toMatch(/extra/);
  });

  it('malformed JSON is answered with REQUEST.INVALID, not a crash', async () => {
    expect(await ask('probe.echo', null, new TextEncoder().encode('{nope'))).toMatchObject({ ok: false, error: { code: 'REQUEST.INVALID' } });
  });

  it('Issue 10 bounded input: a body over the request limit is REQUEST.TOO_LARGE, naming the limit, before any handler runs', async () => {
    const r = await ask('probe.echo', { word: 'x'.repeat(MAX_REQUEST_BYTES) });
    expect(r).toMatchObject({ ok: false, error: { code: 'REQUEST.TOO_LARGE', retryable: false } });
    expect(JSON.stringify(r)).toContain(String(MAX_REQUEST_BYTES));
  });

  it('Issue 10 bounded input: 10k-deep JSON is REQUEST.INVALID (not INTERNAL), the depth limit named', async () => {
    const deep = '{"word":' + '['.repeat(10_000) + ']'.repeat(10_000) + '}';
    const r = await ask('probe.echo', null, new TextEncoder().encode(deep));
    expect(r).toMatchObject({ ok: false, error: { code: 'REQUEST.INVALID', retryable: false } });
    expect(JSON.stringify(r)).toContain(`deeper than ${JSON_BOUNDS.maxDepth}`);
  });

  it.each(JSON_BOUNDS.forbiddenKeys)('Issue 10 bounded input: a "%s" key anywhere is REQUEST.INVALID (not INTERNAL)', async (key) => {
    const r = await ask('probe.echo', null, new TextEncoder().encode(`{"word":"hi","nested":{"${key}":{"polluted":true}}}`));
    // In the words of validation details (validateMessage names a `toString` key the same way).
    expect(r).toMatchObject({ ok: false, error: { code: 'REQUEST.INVALID', retryable: false, message: `The request is not valid: property nested.${key} should not exist.` } });
  });

  it('an unexpected error is INTERNAL and leaks nothing of its message', async () => {
    const r = await ask('probe.crash', {});
    expect(r).toEqual({ ok: false, error: { code: 'INTERNAL', message: 'Something went wrong on our side.', retryable: true } });
  });

  it('Issue 10 transient stays transient: a bus fault inside a handler (no responders, a NATS timeout) is DEPENDENCY.DOWN, retryable, not INTERNAL', async () => {
    expect(await ask('probe.bus-fault', {})).toEqual({ ok: false, error: { code: 'DEPENDENCY.DOWN', message: 'A dependency is not available; retry later.', retryable: true } });
  });

  it('an AppError crosses the wire with its stable code and retryable flag', async () => {
    expect(await ask('probe.denied', {})).toMatchObject({ ok: false, error: { code: 'LANE.DENIED', retryable: false } });
  });

  it('durable consumer: a failing handler is nak-ed and redelivered until it succeeds (ack only after success)', async () => {
    await service.runtime.log.append(aggregateRef('probe', 'a'), [{ type: 'Flaky', data: {} }], { commandId: 'flaky' });
    await waitUntil(() => seen.some((s) => s.type === 'Flaky'), { timeoutMs: 10_000 });
    expect(failuresLeft).toBeLessThan(0);
    expect(seen.filter((s) => s.type === 'Flaky')).toHaveLength(1);
  });

  it('Batch consumer: a transient failure is retried in place, so events are still handled once each and in log order', async () => {
    const ref = aggregateRef('ordered', 'a');
    await service.runtime.log.append(ref, [1, 2, 3, 4, 5].map((n) => ({ type: n === 2 ? 'Flaky' : 'Plain', data: { n } })), { commandId: 'ordered' });
    await waitUntil(() => batchSeen.length >= 5, { timeoutMs: 30_000 });
    expect(batchSeen).toEqual(['1', '2', '3', '4', '5']);
  });

  it('Issue 10 poison: a poison message is terminated (no redelivery, also on nats-server 2.9.10) with one dead-letter record', async () => {
    const { version } = await service.runtime.log.append(aggregateRef('probe', 'b'), [{ type: 'Poison', data: {} }], { commandId: 'poison' });
    const dead = await waitUntil(async () => (await service.runtime.log.read(aggregateRef('deadletter', 'probe')))[0], { timeoutMs: 10_000 });
    expect(dead).toMatchObject({ type: 'MessageDeadLettered', data: { durable: 'probe', stream_seq: version, error_code: 'REQUEST.INVALID' } });
    // Terminated means the server no longer holds it pending: the ack floor passes it. A term the server
    // ignored would leave it pending until ack_wait expires and then redeliver it.
    const jsm = await jetstreamManager(nc);
    await waitUntil(async () => {
      const info = await jsm.consumers.info(LOG_STREAM, 'probe');
      return info.num_ack_pending === 0 && info.ack_floor.stream_seq >= version;
    }, { timeoutMs: 10_000 });
    expect((await service.runtime.log.read(aggregateRef('deadletter', 'probe'))).filter((e) => e.data && (e.data as { stream_seq: number }).stream_seq === version)).toHaveLength(1);
    // Later messages still flow.
    await service.runtime.log.append(aggregateRef('probe', 'c'), [{ type: 'Fine', data: {} }], { commandId: 'fine' });
    await waitUntil(() => seen.some((s) => s.type === 'Fine'), { timeoutMs: 5_000 });
  });

  it('health: the service answers rl.health.<service> and HTTP readiness', async () => {
    expect(await ask('rl.health.probe', {})).toMatchObject({ ok: true, body: { service: 'probe', status: 'ok' } });
    const http = await fetch(`http://127.0.0.1:${service.httpPort}/health/ready`);
    expect(http.status).toBe(200);
  });

  it('health: a request with a malformed JSON body gets no parser internals back (probe finding: "Expected property name …")', async () => {
    for (const method of ['POST', 'PUT']) {
      const r = await fetch(`http://127.0.0.1:${service.httpPort}/health/ready`, { method, headers: { 'content-type': 'application/json' }, body: '{bad' });
      const text = await r.text();
      expect({ method, status: r.status, leaks: /JSON|position|SyntaxError/i.test(text) }).toEqual({ method, status: 404, leaks: false });
    }
  });

  it('health: HTTP readiness reports 503 while NATS is unreachable and recovers after reconnecting', async () => {
    const ready = async () => (await fetch(`http://127.0.0.1:${service.httpPort}/health/ready`)).status;
    server.kill('SIGKILL');
    await waitUntil(async () => (await ready()) === 503, { timeoutMs: 10_000 });
    expect((await fetch(`http://127.0.0.1:${service.httpPort}/health/live`)).status).toBe(200);
    await server.restart();
    await waitUntil(async () => (await ready()) === 200, { timeoutMs: 15_000 });
  });
});
