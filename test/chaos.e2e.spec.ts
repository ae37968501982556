/**
 * Issue 10: the short version of `npm run chaos` in CI — a few requests while two services are SIGKILLed and
 * nats-server is SIGKILLed and restarted; every count of the fault suite must be zero and the chain must verify.
 */
import { CHAOS_CLEAN, runChaos } from './support/faults';

jest.setTimeout(900_000);

describe('Issue 10 fault suite (short): npm run chaos with 12 requests, 2 service kills, 1 nats-server restart', () => {
  it('Issue 10 chaos: every request answered truthfully, no run left open, no lie, no duplicate, nothing lost, coverage clean, chain verifies', async () => {
    const { code, counts, stderr } = await runChaos(['--requests', '12', '--kills', '2', '--nats-restarts', '1', '--concurrency', '4', '--seed', '10']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(counts).toMatchObject({ requests: 12, answered: 12, service_kills: 2, nats_restarts: 1, ...CHAOS_CLEAN });
  });
});
