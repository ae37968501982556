import { connect, NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { aggregateRef, ensureLogStream, EventLog } from '@runledger/event-log';
import { sha256Hex } from '@runledger/kernel';
import { startNatsServer, NatsServerHandle, waitUntil } from '@runledger/testing';
import { loadOperatorRoles, OperatorActions } from './operator-actions';
import { publishPolicyFile, readPublishedPolicyFile } from './policy-catalog';

/** Issue 25 review: an operators' roles version keeps one content, whichever of decision and audit-ledger starts first. */
describe('Issue 25 operators\' roles versions are immutable, whoever starts first', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  const logOf = async (producer: string) => new EventLog(jetstream(nc), await jetstreamManager(nc), { producer, clock: { now: () => new Date() } });

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect(server.connectOptions());
    await ensureLogStream(await jetstreamManager(nc));
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  it.each([
    ['audit-ledger', 'decision', 'v-ledger-first'],
    ['decision', 'audit-ledger', 'v-decision-first'],
  ])('Issue 25 %s starts first with a file, %s then refuses the same version with other content (POLICY.INVALID) and starts on the same content', async (first, second, version) => {
    const { policy, yaml } = loadOperatorRoles();
    const mine = { ...policy, version };
    const text = yaml.replace(policy.version, version);
    await new OperatorActions(await logOf(first), mine, text).start();
    const changed = text.replace('actions: []', 'actions: [cancel]');
    await expect(new OperatorActions(await logOf(second), mine, changed).start()).rejects.toMatchObject({ code: 'POLICY.INVALID' });
    await expect(new OperatorActions(await logOf(second), mine, text).start()).resolves.toBeUndefined();
  });

  it('Probe finding (high, part): a policy version whose subject holds a message an identity had the server store there (a JetStream answer to a request\'s reply subject) is still published, after it; services start', async () => {
    const log = await logOf('decision');
    const version = 'v-foreign-first';
    const subject = aggregateRef('policy', `lanes-${sha256Hex(version).slice(0, 24)}`).subject;
    nc.publish('$JS.API.INFO', new Uint8Array(), { reply: subject });
    await waitUntil(async () => (await log.version(subject)) > 0);
    await publishPolicyFile(log, 'lanes', version, 'lanes: []\n');
    expect(await readPublishedPolicyFile(log, 'lanes', version)).toBe('lanes: []\n');
  });
});
