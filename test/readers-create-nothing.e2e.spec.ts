import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { aggregateRef, EventLog, LOG_STREAM } from '@runledger/event-log';
import { BusLayout, provisionBus } from '@runledger/messaging';
import { startNatsServer, type NatsServerHandle } from '@runledger/testing';

jest.setTimeout(120_000);

// eslint-disable-next-line @typescript-eslint/no-require-imports
const permissions = require('../scripts/lib/permissions.js') as {
  loadTable(): { services: string[]; clients: Record<string, string>; log: { readers: string[]; durables: Record<string, { owner: string; filter: string }> }; kv: { prefix: string; users: string[] } };
  identities(table: unknown): string[];
  busLayout(table: unknown): BusLayout;
};

/**
 * Issue 23, readers that create nothing: no identity but the bootstrap creates a consumer. nats-server decides push or
 * pull, durable or not, from the request's body, so a reader allowed any consumer-create subject could keep state on
 * the server or deliver the log into another identity's inbox or a service's request subject. Each identity of the
 * table tries, against a nats-server started with the rendered permissions; the durable owners may only tune theirs.
 */
describe('Issue 23: readers read the log and the stores without creating any consumer', () => {
  const table = permissions.loadTable();
  let server: NatsServerHandle;
  let admin: NatsConnection;
  const conns = new Map<string, NatsConnection>();
  const as = async (identity: string): Promise<NatsConnection> => {
    let nc = conns.get(identity);
    if (!nc) {
      nc = await connect(server.connectOptions(identity));
      conns.set(identity, nc);
    }
    return nc;
  };
  const REFUSED = /Permissions Violation/;
  /** A JetStream API request as `identity`; the server's violation rejects it, an API error is the answer's `error`. */
  const api = async (identity: string, subject: string, body: unknown): Promise<{ error?: { err_code: number; description: string } }> => {
    const msg = await (await as(identity)).request(subject, JSON.stringify(body), { timeout: 10_000 });
    return msg.json();
  };
  const consumerNames = async (stream: string): Promise<string[]> => {
    const names: string[] = [];
    for await (const c of (await jetstreamManager(admin)).consumers.list(stream)) names.push(c.name);
    return names.sort();
  };

  beforeAll(async () => {
    server = await startNatsServer();
    admin = await connect(server.connectOptions());
    await provisionBus(admin, permissions.busLayout(table));
    const log = new EventLog(jetstream(admin), await jetstreamManager(admin), { producer: 'test', clock: { now: () => new Date() } });
    await log.append(aggregateRef('run', 'r-readers'), [{ type: 'RunCreated', data: { run_id: 'r-readers' } }], { commandId: 'c-readers', expectedVersion: 0 });
  });
  afterAll(async () => {
    for (const nc of conns.values()) await nc.close().catch(() => undefined);
    await admin?.close();
    await server?.stop();
  });

  const everyone = permissions.identities(table);
  const durables = Object.entries(table.log.durables);
  /** Another identity's inbox and a service's request subject: where a redirected log would be delivered. */
  const victims = (identity: string) => [`_INBOX_${identity === 'caller' ? 'operator' : 'caller'}.stolen`, 'rl.intent.classify'];

  describe.each(everyone)('%s', (identity) => {
    it('Issue 23 bypass: creates a named durable consumer on the log (state kept on the server) → refused', async () => {
      await expect(api(identity, `$JS.API.CONSUMER.DURABLE.CREATE.${LOG_STREAM}.mine`, { stream_name: LOG_STREAM, config: { durable_name: 'mine', ack_policy: 'explicit' } })).rejects.toThrow(REFUSED);
      await expect(api(identity, `$JS.API.CONSUMER.CREATE.${LOG_STREAM}.mine.rl.log.>`, { stream_name: LOG_STREAM, config: { durable_name: 'mine', filter_subject: 'rl.log.>', ack_policy: 'explicit' } })).rejects.toThrow(REFUSED);
    });

    it('Issue 23 bypass: creates a push consumer delivering the log into another identity\'s inbox or a service\'s request subject → refused, no consumer exists', async () => {
      for (const deliver of victims(identity)) {
        await expect(api(identity, `$JS.API.CONSUMER.CREATE.${LOG_STREAM}`, { stream_name: LOG_STREAM, config: { deliver_subject: deliver, ack_policy: 'none' } })).rejects.toThrow(REFUSED);
        await expect(api(identity, `$JS.API.CONSUMER.CREATE.${LOG_STREAM}.eph.rl.log.>`, { stream_name: LOG_STREAM, config: { name: 'eph', deliver_subject: deliver, filter_subject: 'rl.log.>', ack_policy: 'none' } })).rejects.toThrow(REFUSED);
      }
      expect(await consumerNames(LOG_STREAM)).toEqual(durables.map(([name]) => name).sort());
    });

    it('Issue 23 bypass: creates a consumer on a document bucket or the data-key bucket (a KV watch pushes) → refused', async () => {
      for (const stream of [`KV_${table.kv.prefix}tasks`, 'KV_rl_data_keys', 'OBJ_rl_artifacts']) {
        await expect(api(identity, `$JS.API.CONSUMER.CREATE.${stream}`, { stream_name: stream, config: { deliver_subject: victims(identity)[0], ack_policy: 'none' } })).rejects.toThrow(REFUSED);
        expect(await consumerNames(stream)).toEqual([]);
      }
    });

    if (table.log.readers.includes(identity)) {
      it('Issue 23 positive path: reads a run from the log by direct gets', async () => {
        const nc = await as(identity);
        const log = new EventLog(jetstream(nc), await jetstreamManager(nc), { producer: identity, clock: { now: () => new Date() } });
        expect((await log.read(aggregateRef('run', 'r-readers'))).map((e) => e.type)).toEqual(['RunCreated']);
        const { state } = await log.replay((n: number) => n + 1, 0);
        expect(state).toBe(1);
      });
    }
  });

  describe.each(durables)('the owner of durable %s', (durable, d) => {
    it('Issue 23 bypass: the owner re-creates its durable as a push consumer into another identity\'s inbox → refused by the server, the durable stays a pull consumer', async () => {
      for (const config of [
        { durable_name: durable, filter_subject: d.filter, ack_policy: 'explicit', deliver_subject: '_INBOX_caller.stolen' },
        { durable_name: durable, filter_subject: d.filter, ack_policy: 'explicit', deliver_subject: 'rl.intent.classify', max_waiting: 0 },
        { name: durable, filter_subject: d.filter, ack_policy: 'none', deliver_subject: 'rl.intent.classify' },
      ]) {
        const answer = await api(d.owner, `$JS.API.CONSUMER.CREATE.${LOG_STREAM}.${durable}.${d.filter}`, { stream_name: LOG_STREAM, config });
        expect(answer.error).toBeDefined();
      }
      const info = await (await jetstreamManager(admin)).consumers.info(LOG_STREAM, durable);
      expect(info.config.deliver_subject).toBeUndefined();
    });
    it('Issue 23 bypass: the owner creates another consumer under the legacy ephemeral subject → refused', async () => {
      await expect(api(d.owner, `$JS.API.CONSUMER.CREATE.${LOG_STREAM}`, { stream_name: LOG_STREAM, config: { deliver_subject: 'rl.intent.classify', ack_policy: 'none' } })).rejects.toThrow(REFUSED);
    });
  });
});
