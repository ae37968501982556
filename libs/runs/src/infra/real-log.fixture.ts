import { connect, NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { ensureLogStream, EventLog } from '@runledger/event-log';
import { startNatsServer, NatsServerHandle } from '@runledger/testing';
import { RunRepository } from './run-repository';

/**
 * Int-test fixture: a RunRepository on a real nats-server's log (started in beforeAll, stopped in afterAll), appending
 * as `producer` (the owner of the runs it creates: issue 23); `repo(other)` appends on the same log as another owner.
 */
export function runRepositoryOnRealLog(producer = 'decision'): { repo: (as?: string) => RunRepository; nc: () => NatsConnection } {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let repo: RunRepository;
  let jsm: JetStreamManager;
  const as = (owner: string) => new RunRepository(new EventLog(jetstream(nc), jsm, { producer: owner, clock: { now: () => new Date('2026-01-01T00:00:00Z') } }));
  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect(server.connectOptions());
    jsm = await jetstreamManager(nc);
    await ensureLogStream(jsm);
    repo = new RunRepository(new EventLog(jetstream(nc), jsm, { producer, clock: { now: () => new Date('2026-01-01T00:00:00Z') } }));
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });
  return { repo: (owner) => (owner && owner !== producer ? as(owner) : repo), nc: () => nc };
}
