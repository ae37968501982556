/**
 * The bootstrap step: as the admin identity (NATS_CREDS), create the log stream, its durable consumers, the document-store buckets and
 * the object stores named in deploy/nats/permissions.yaml, or check the existing log is still immutable.
 * Run by the launcher (scripts/lib/stack.js) before the services start; they may not create any of these.
 */
import { connect } from '@nats-io/transport-node';
import { identityFromEnv, identityOptions } from '../libs/messaging/src/nats-identity';
import { BusLayout, provisionBus } from '../libs/messaging/src/provision';

const { loadTable, busLayout } = require('./lib/permissions.js') as {
  loadTable(): unknown;
  busLayout(table: unknown): BusLayout;
};

async function main(): Promise<void> {
  const nc = await connect({ servers: (process.env.NATS_URL ?? 'nats://127.0.0.1:4222').split(','), name: 'runledger-bootstrap', ...identityOptions(identityFromEnv()) });
  try {
    await provisionBus(nc, busLayout(loadTable()));
  } finally {
    await nc.close();
  }
}

main().then(
  () => process.stdout.write('bootstrap done\n'),
  (err: Error) => {
    process.stderr.write(`bootstrap failed: ${err.message}\n`);
    process.exit(3);
  },
);
