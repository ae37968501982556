import { connect, NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { ensureLogStream, EventLog } from '@runledger/event-log';
import { startNatsServer, NatsServerHandle } from '@runledger/testing';
import { RunRepository } from './run-repository';

/** Int-test fixture: a RunRepository on a real nats-server's log (started in beforeAll, stopped in afterAll), appending as `producer` (the owner of the runs it creates: issue 23). */
export function runRepositoryOnRealLog(producer = 'decision'): { repo: () => RunRepository } {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let repo: RunRepository;
  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect(server.connectOptions());
    const jsm = await jetstreamManager(nc);
    await ensureLogStream(jsm);
    repo = new RunRepository(new EventLog(jetstream(nc), jsm, { producer, clock: { now: () => new Date('2026-01-01T00:00:00Z') } }));
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });
  return { repo: () => repo };
}
