import './nats-request-patch';
import './nats-write-patch';
import './nats-headers-patch';
import { connect, NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { Clock, settingFlag, settingText } from '@runledger/kernel';
import { ensureLogStream, EventLog } from '@runledger/event-log';
import { Bus } from './bus';
import { consumerIdentityFromEnv, CredentialsMissingError, identityFromEnv, identityOptions, NatsIdentity } from './nats-identity';
import { CachedDataKeys, KvDataKeyStore } from './data-keys';
import { SealingCodec } from './sealing';
import { ServiceHealth } from './health';

/** Everything a service needs to talk to the bus and the log; built once per process. */
export interface ServiceRuntime {
  service: string;
  nc: NatsConnection;
  /**
   * The connection the service's durables are pulled and acked on, as their consumer identity (permissions.yaml
   * log.durables `consumer`: no response permission, so nats-server keeps no reply subject of a delivery for it).
   * Undefined: pulled and acked on `nc`.
   */
  consumerNc?: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  log: EventLog;
  bus: Bus;
  clock: Clock;
  /** Per-user and per-case data keys (issue 9 erasure), cached in process. */
  dataKeys: CachedDataKeys;
  /** False while the client is disconnected and reconnecting; readiness follows it. */
  isConnected(): boolean;
  /** Parts of the service refused at start (and why), reported on rl.health.{service} and /health/ready. */
  health: ServiceHealth;
}

/**
 * The log must exist (the bootstrap creates it) and still be immutable; a service refuses to start otherwise.
 * A busy machine can make the first JetStream calls time out while all services start at once: try again.
 */
async function checkLog(nc: NatsConnection): Promise<JetStreamManager> {
  for (let attempt = 1; ; attempt++) {
    try {
      // Management calls wait longer than the 5 s default: at start-up seven processes compete for two cores.
      const jsm = await jetstreamManager(nc, { timeout: 15_000 });
      await ensureLogStream(jsm);
      return jsm;
    } catch (err) {
      if (attempt >= 4 || !/timeout/i.test((err as Error).message)) throw err;
    }
  }
}

export const systemClock: Clock = { now: () => new Date() };

/** Credentials of any kind, a client certificate included (a server may authenticate by the certificate alone). */
const isAuthenticated = (id: NatsIdentity): boolean => Boolean(id.creds || id.user || id.token || id.tlsCertFile);

/**
 * A service whose durable has a consumer identity (permissions.yaml log.durables `consumer`) connecting with
 * credentials, so to a secured server where its own identity may not pull or ack that durable: without the consumer
 * identity it would start, take nothing and fall behind with no error. It refuses to start instead, naming the settings.
 */
function consumerIdentityMissing(service: string): string {
  return `${service} connects to a secured NATS (its own credentials are set) but names no consumer identity for its durable: `
    + 'set NATS_CONSUMER_CREDS (or NATS_CONSUMER_USER and NATS_CONSUMER_PASSWORD) and NATS_CONSUMER_INBOX_PREFIX '
    + `(deploy/nats/permissions.yaml log.durables \`consumer\`); without them its durable is never pulled and it falls behind`;
}

/**
 * `identity` overrides the one the environment names (NATS_CREDS, NATS_USER, …). The log seals personal and case
 * data at append and opens it at read (README "Erasure"); `rawLog` keeps it sealed on both ways, for the audit
 * ledger, whose chain hashes what the log holds. `consumerIdentityRequired`: the service's durable is pulled and acked
 * as its consumer identity only, so on a secured server it refuses to start without one (README "Configuration").
 */
export async function createRuntime(service: string, opts: { natsUrl?: string; clock?: Clock; identity?: NatsIdentity; consumerIdentity?: NatsIdentity; consumerIdentityRequired?: boolean; rawLog?: boolean } = {}): Promise<ServiceRuntime> {
  const connectAs = (name: string, identity: NatsIdentity) => connect({
    // A comma-separated list names several nodes of a cluster (the client fails over between them).
    servers: (opts.natsUrl ?? settingText('NATS_URL')).split(','),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    // The client builds an Error per request only to give async stack traces: 11–16 % of a service's CPU
    // (issue 12 profile). RL_ASYNC_TRACES=1 turns them back on when debugging.
    noAsyncTraces: !settingFlag('RL_ASYNC_TRACES'),
    // The first connect of seven processes starting together on two cores can take a while.
    timeout: 30_000,
    // Each service connects as its own identity (permissions from deploy/nats/permissions.yaml) and gets
    // replies on its own inbox prefix.
    ...identityOptions(identity),
  });
  const identity = opts.identity ?? identityFromEnv();
  const consumerIdentity = opts.consumerIdentity ?? consumerIdentityFromEnv();
  if (opts.consumerIdentityRequired && !consumerIdentity && isAuthenticated(identity)) throw new CredentialsMissingError(consumerIdentityMissing(service));
  const nc = await connectAs(`runledger-${service}`, identity);
  const consumerNc = consumerIdentity ? await connectAs(`runledger-${service}-consumer`, consumerIdentity) : undefined;
  const jsm = await checkLog(nc);
  const js = jetstream(nc);
  const clock = opts.clock ?? systemClock;
  const dataKeys = new CachedDataKeys(new KvDataKeyStore(nc));
  const codec = opts.rawLog ? undefined : new SealingCodec(dataKeys);
  let connected = true;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') connected = false;
      else if (s.type === 'reconnect') connected = true;
    }
  })();
  return {
    service, nc, consumerNc, js, jsm, clock, dataKeys, log: new EventLog(js, jsm, { producer: service, clock, codec }), bus: new Bus(nc),
    isConnected: () => connected && !nc.isClosed() && !nc.isDraining(),
    health: new ServiceHealth(),
  };
}
