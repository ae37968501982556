/**
 * Issue 10 "beyond one machine": the short fault suite on a three-node JetStream cluster on loopback (log and
 * buckets with three replicas) with two instances of every service; a NATS node and service instances are
 * SIGKILLed mid-load, nothing is lost and the load carries on.
 */
import { CHAOS_CLEAN, runChaos } from './support/faults';

jest.setTimeout(900_000);

describe('Issue 10 fault suite on a cluster: npm run chaos -- --cluster with 12 requests, 2 service kills, 1 nats node restart', () => {
  it('Issue 10 beyond one machine: killing a NATS node or one instance of a service mid-load loses nothing and the load carries on', async () => {
    const { code, counts, stderr } = await runChaos(['--cluster', '--requests', '12', '--kills', '2', '--nats-restarts', '1', '--concurrency', '4', '--seed', '10']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(counts).toMatchObject({ requests: 12, answered: 12, service_kills: 2, nats_restarts: 1, ...CHAOS_CLEAN });
  });
});
