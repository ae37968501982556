/**
 * runledger erase --user ID | --case ID — erasure in an immutable log: destroys the user's or the case's data key
 * (NATS KV bucket rl_data_keys). Events keep their ciphertext, so the log and the audit chain still verify, but
 * whatever was sealed with that key reads as `{ "erased": true }` from then on, and nothing new is sealed for it.
 *
 * Exit codes: 0 key destroyed (or never created), 2 usage, 3 the stack cannot be reached or refused the request.
 */
import { DataOwner, KvDataKeyStore } from '../../libs/messaging/src/data-keys';
import { connectCli, CONNECTION_USAGE, ConnectionRefused, ConnectionUsageError, parseConnectionFlags } from './connection';

const USAGE = `usage: runledger erase --user ID | --case ID   ${CONNECTION_USAGE}`;

export async function main(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseConnectionFlags(args);
  } catch (err) {
    if (err instanceof ConnectionUsageError) return usage(err.message);
    throw err;
  }
  const [flag, id, ...extra] = parsed.rest;
  if ((flag !== '--user' && flag !== '--case') || !id || id.startsWith('--') || extra.length) return usage();
  const owner: DataOwner = { kind: flag === '--user' ? 'user' : 'case', id };
  try {
    const nc = await connectCli(parsed.flags);
    try {
      await new KvDataKeyStore(nc).destroy(owner);
    } catch (err) {
      throw new ConnectionRefused(`the data key store refused the erasure: ${(err as Error).message}`);
    } finally {
      await nc.close();
    }
  } catch (err) {
    if (!(err instanceof ConnectionRefused)) throw err;
    process.stderr.write(`${err.message}\n`);
    return err.exitCode;
  }
  process.stdout.write(`erased ${owner.kind} ${owner.id}: data key destroyed; sealed data now reads as erased\n`);
  return 0;
}

function usage(message?: string): number {
  process.stderr.write(`${message ? `${message}\n` : ''}${USAGE}\n`);
  return 2;
}
