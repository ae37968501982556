import { Controller, DynamicModule, Module } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { aggregateRef, ensureLogStream, EventLog, LOG_STREAM, StoredEvent } from '@runledger/event-log';
import { useNatsServer, waitUntil } from '@runledger/testing';
import { bootstrapService } from './bootstrap';
import { provisionDurable } from './durable-consumer';
import { LogConsumer } from './handlers';
import { MessagingModule } from './messaging.module';
import { createRuntime, ServiceRuntime } from './runtime';

const batches: number[][] = [];

@Controller()
class LedgerLikeProjection {
  // The ledger's durable: the permissions table gives its pull and acks to audit-ledger-consumer only.
  @LogConsumer('rl.log.run.>', { durable: 'audit-ledger', batch: 16, lingerMs: 50, ackWaitMs: 10 * 60_000 })
  async onBatch(@Payload() events: StoredEvent[]) {
    batches.push(events.map((e) => (e.data as { n: number }).n));
  }
}

@Module({})
class ProjectionModule {
  static forRuntime(runtime: ServiceRuntime): DynamicModule {
    return { module: ProjectionModule, imports: [MessagingModule.forRuntime(runtime)], controllers: [LedgerLikeProjection] };
  }
}

jest.setTimeout(120_000);

describe('Issue 22 the ledger\'s durable: pulled and acked by its own identity (no response permission), one ack per batch', () => {
  const nats = useNatsServer();
  const testLog = async () => {
    const jsm = await jetstreamManager(nats.nc);
    await ensureLogStream(jsm);
    return { jsm, js: jetstream(nats.nc), log: new EventLog(jetstream(nats.nc), jsm, { producer: 'test', clock: { now: () => new Date() } }) };
  };

  it('Issue 22 migration: the bootstrap creates an explicit-ack durable of an earlier release again as ack-all at its ack floor + 1: nothing acked is delivered again, nothing is skipped, its tuning kept', async () => {
    const { jsm, js, log } = await testLog();
    await jsm.consumers.add(LOG_STREAM, { durable_name: 'mig', filter_subject: 'rl.log.mig.*', ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, max_deliver: -1, ack_wait: 45_000_000_000, max_ack_pending: 128 });
    const seqs: number[] = [];
    for (let n = 1; n <= 5; n++) seqs.push((await log.append(aggregateRef('mig', 'a'), [{ type: 'Plain', data: { n } }], { commandId: `mig-${n}` })).version);
    // The earlier release handled 1–3 and acked them; 4–5 were delivered and not acked when it stopped.
    const taken = await (await js.consumers.get(LOG_STREAM, 'mig')).fetch({ max_messages: 5, expires: 5_000 });
    for await (const m of taken) if (m.seq <= seqs[2]) await m.ackAck();
    expect((await jsm.consumers.info(LOG_STREAM, 'mig')).ack_floor.stream_seq).toBe(seqs[2]);

    await provisionDurable(jsm, 'mig', 'rl.log.mig.*', true);
    const migrated = await jsm.consumers.info(LOG_STREAM, 'mig');
    expect(migrated.config).toMatchObject({ ack_policy: AckPolicy.All, filter_subject: 'rl.log.mig.*', deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: seqs[2] + 1, ack_wait: 45_000_000_000, max_ack_pending: 128 });
    const again = await (await js.consumers.get(LOG_STREAM, 'mig')).fetch({ max_messages: 5, expires: 2_000 });
    const delivered: number[] = [];
    for await (const m of again) delivered.push(m.seq);
    expect(delivered).toEqual([seqs[3], seqs[4]]);

    // Run again (every `npm start` runs the bootstrap), the ack-all durable is kept as it is: not created again.
    await provisionDurable(jsm, 'mig', 'rl.log.mig.*', true);
    expect((await jsm.consumers.info(LOG_STREAM, 'mig')).created).toBe(migrated.created);
  });

  it('Issue 22 migration: a durable that started at a sequence and has acked nothing since (its ack floor reads 0 on nats-server 2.9) resumes at that sequence, not at the log\'s start', async () => {
    const { jsm, log } = await testLog();
    const first = (await log.append(aggregateRef('mig2', 'a'), [{ type: 'Plain', data: { n: 1 } }], { commandId: 'mig2-1' })).version;
    await jsm.consumers.add(LOG_STREAM, { durable_name: 'mig2', filter_subject: 'rl.log.mig2.*', ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: first + 1, max_deliver: -1 });
    expect((await jsm.consumers.info(LOG_STREAM, 'mig2')).ack_floor.stream_seq).toBe(0);
    await provisionDurable(jsm, 'mig2', 'rl.log.mig2.*', true);
    expect((await jsm.consumers.info(LOG_STREAM, 'mig2')).config).toMatchObject({ ack_policy: AckPolicy.All, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: first + 1 });
  });

  it('Issue 22: a service whose own identity may not pull or ack the ledger\'s durable consumes it as audit-ledger-consumer, settling each batch with one ack', async () => {
    const { jsm, log } = await testLog();
    await provisionDurable(jsm, 'audit-ledger', 'rl.log.run.>', true);
    let lastSeq = 0;
    for (let n = 1; n <= 8; n++) lastSeq = (await log.append(aggregateRef('run', `r${n % 3}`), [{ type: 'Plain', data: { n } }], { commandId: `ci-${n}` })).version;
    let acks = 0;
    const tap = nats.nc.subscribe(`$JS.ACK.${LOG_STREAM}.audit-ledger.>`, { callback: () => void acks++ });
    const creds = nats.server.creds;
    // audit-ledger itself is refused MSG.NEXT and acks on this durable: only the consumer connection can settle it.
    const service = await bootstrapService('audit-ledger', (rt) => ProjectionModule.forRuntime(rt), {
      natsUrl: nats.server.url, httpPort: 0, rawLog: true,
      identity: { creds: creds['audit-ledger'].file, inboxPrefix: creds['audit-ledger'].inboxPrefix },
      consumerIdentity: { creds: creds['audit-ledger-consumer'].file, inboxPrefix: creds['audit-ledger-consumer'].inboxPrefix },
    });
    try {
      await waitUntil(() => batches.flat().length >= 8, { timeoutMs: 60_000, description: 'every commit handled' });
      await waitUntil(async () => (await jsm.consumers.info(LOG_STREAM, 'audit-ledger')).num_ack_pending === 0, { timeoutMs: 60_000, description: 'every delivery settled' });
      await nats.nc.flush();
      expect(batches.flat()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(batches.length).toBeLessThan(8);
      expect(acks).toBe(batches.length);
      expect((await jsm.consumers.info(LOG_STREAM, 'audit-ledger')).ack_floor.stream_seq).toBe(lastSeq);
    } finally {
      tap.unsubscribe();
      await service.stop();
    }
  });

  it('Issue 22: on a secured server a service whose durable needs its consumer identity refuses to start without one, naming NATS_CONSUMER_CREDS and NATS_CONSUMER_INBOX_PREFIX, instead of running and never settling its durable', async () => {
    const { jsm } = await testLog();
    await provisionDurable(jsm, 'audit-ledger', 'rl.log.run.>', true);
    const named = Object.keys(process.env).filter((k) => k.startsWith('NATS_CONSUMER_'));
    expect(named).toEqual([]);
    const creds = nats.server.creds;
    const start = bootstrapService('audit-ledger', (rt) => ProjectionModule.forRuntime(rt), {
      natsUrl: nats.server.url, httpPort: 0, rawLog: true, consumerIdentityRequired: true,
      identity: { creds: creds['audit-ledger'].file, inboxPrefix: creds['audit-ledger'].inboxPrefix },
    });
    await expect(start).rejects.toThrow(/audit-ledger connects to a secured NATS .*NATS_CONSUMER_CREDS .*NATS_CONSUMER_INBOX_PREFIX/);
    // It refused before it connected: no pull of its durable is waiting.
    expect((await jsm.consumers.info(LOG_STREAM, 'audit-ledger')).num_waiting).toBe(0);
    // A client certificate is an identity too (a server may authenticate by it alone): refused the same way, before
    // any connection (the files need not exist for that).
    await expect(createRuntime('audit-ledger', { natsUrl: nats.server.url, rawLog: true, consumerIdentityRequired: true, identity: { tlsCertFile: '/nonexistent/client.pem', tlsKeyFile: '/nonexistent/client.key' } }))
      .rejects.toThrow(/audit-ledger connects to a secured NATS .*NATS_CONSUMER_CREDS/);
  });
});
