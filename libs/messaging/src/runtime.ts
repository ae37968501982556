import { connect, NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { Clock } from '@runledger/kernel';
import { ensureLogStream, EventLog } from '@runledger/event-log';
import { Bus } from './bus';

/** Everything a service needs to talk to the bus and the log; built once per process. */
export interface ServiceRuntime {
  service: string;
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  log: EventLog;
  bus: Bus;
  clock: Clock;
  /** False while the client is disconnected and reconnecting; readiness follows it. */
  isConnected(): boolean;
}

export const systemClock: Clock = { now: () => new Date() };

export async function createRuntime(service: string, opts: { natsUrl?: string; clock?: Clock } = {}): Promise<ServiceRuntime> {
  const nc = await connect({
    servers: opts.natsUrl ?? process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
    name: `runledger-${service}`,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    // The client builds an Error per request only to give async stack traces: 11–16 % of a service's CPU
    // (issue 12 profile). RL_ASYNC_TRACES=1 turns them back on when debugging.
    noAsyncTraces: process.env.RL_ASYNC_TRACES !== '1',
    // Production servers give each service a user whose permissions forbid deleting or purging the log.
    ...(process.env.NATS_USER ? { user: process.env.NATS_USER, pass: process.env.NATS_PASSWORD } : {}),
    ...(process.env.NATS_TOKEN ? { token: process.env.NATS_TOKEN } : {}),
  });
  const jsm = await jetstreamManager(nc);
  await ensureLogStream(jsm);
  const js = jetstream(nc);
  const clock = opts.clock ?? systemClock;
  let connected = true;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') connected = false;
      else if (s.type === 'reconnect') connected = true;
    }
  })();
  return {
    service, nc, js, jsm, clock, log: new EventLog(js, jsm, { producer: service, clock }), bus: new Bus(nc),
    isConnected: () => connected && !nc.isClosed() && !nc.isDraining(),
  };
}
