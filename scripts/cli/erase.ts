/**
 * runledger erase --user ID | --case ID — erasure in an immutable log (README "Erasure"): destroys the user's or the
 * case's data key (NATS KV bucket rl_data_keys). Events keep their ciphertext, so the log and the audit chain still
 * verify, but whatever was sealed with that key reads as erased from then on, and nothing new is stored for it
 * (DATA.ERASED). The mutable stores that hold the owner's plaintext lose the owner's rows: the user's tasks
 * (owner_id), the case's documents (case_id: transcripts, notes, facts, entities, maps, bundles) and the case's
 * artifacts in the object store (transcripts, source documents). The audit read models keep their rows: they hold
 * the sealed values, which now read as erased.
 *
 * Exit codes: 0 key destroyed (or never created), 2 usage, 3 the stack cannot be reached or refused the request.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { Objm } from '@nats-io/obj';
import { createDocumentStore } from '@runledger/document-store';
import { DataOwner, KvDataKeyStore } from '../../libs/messaging/src/data-keys';
import { connectCli, CONNECTION_USAGE, ConnectionRefused, ConnectionUsageError, parseConnectionFlags } from './connection';

const permissions = require('../lib/permissions.js') as { loadTable(): { kv: { collections: string[] }; object_stores: Record<string, string[]> } };

const USAGE = `usage: runledger erase --user ID | --case ID   ${CONNECTION_USAGE}`;
/** Read models that hold sealed values (or ids only): they keep their rows, which read as erased. */
const KEPT = new Set(['audit_events', 'audit_decisions', 'runs_index']);

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
  let removed: { rows: number; artifacts: number };
  try {
    // Erasure destroys key material: an admin act (the operator identity changes nothing), as the bootstrap admin.
    const nc = await connectCli(parsed.flags, 'runledger-erase', 'admin');
    try {
      // The key first: from this moment no service can open or add the owner's data, whatever happens next.
      await new KvDataKeyStore(nc).destroy(owner);
      removed = await removePlaintext(nc, owner);
    } catch (err) {
      throw new ConnectionRefused(`the stack refused the erasure: ${(err as Error).message}`);
    } finally {
      await nc.close();
    }
  } catch (err) {
    if (!(err instanceof ConnectionRefused)) throw err;
    process.stderr.write(`${err.message}\n`);
    return err.exitCode;
  }
  process.stdout.write(`erased ${owner.kind} ${owner.id}: data key destroyed; sealed data now reads as erased; ${removed.rows} stored document(s) and ${removed.artifacts} artifact(s) removed\n`);
  return 0;
}

/** Removes the owner's rows from the mutable stores that hold plaintext, and a case's artifacts. Idempotent. */
async function removePlaintext(nc: NatsConnection, owner: DataOwner): Promise<{ rows: number; artifacts: number }> {
  const table = permissions.loadTable();
  const store = createDocumentStore({ natsConnection: nc, mongoUrl: process.env.MONGO_URL });
  let rows = 0;
  try {
    const field = owner.kind === 'user' ? 'owner_id' : 'case_id';
    for (const name of table.kv.collections.filter((c) => !KEPT.has(c))) {
      const collection = store.collection<Record<string, unknown>>(name);
      for (const doc of await collection.find({ [field]: owner.id })) if (await collection.delete(doc.id)) rows++;
    }
  } finally {
    await store.close();
  }
  let artifacts = 0;
  if (owner.kind === 'case') {
    for (const bucket of Object.keys(table.object_stores)) {
      const objects = await new Objm(nc).open(bucket);
      for (const info of await objects.list()) {
        const ref = JSON.parse(info.metadata?.artifact_ref ?? '{}') as { case_id?: string };
        if (ref.case_id === owner.id && (await objects.delete(info.name)).success) artifacts++;
      }
    }
  }
  return { rows, artifacts };
}

function usage(message?: string): number {
  process.stderr.write(`${message ? `${message}\n` : ''}${USAGE}\n`);
  return 2;
}
