/**
 * runledger erase --user ID | --case ID — erasure in an immutable log (README "Erasure"): destroys the user's or the
 * case's data key (NATS KV bucket rl_data_keys). Events keep their ciphertext, so the log and the audit chain still
 * verify, but whatever was sealed with that key reads as erased from then on, and nothing new is stored for it
 * (DATA.ERASED). The document collections lose the owner's rows: the user's (owner_id: tasks), the case's (case_id:
 * transcripts, notes, facts, entities, maps, bundles), and the object store the case's artifacts (transcripts, source
 * documents). Key, rows and artifacts go by secure delete (issue 23): nats-server overwrites their bytes on disk, where
 * a purge or a KV delete left them for a disk read. The audit read models keep their rows: they hold the sealed
 * values, which now read as erased.
 *
 * An id that never had a key is erased pre-emptively (its tombstone refuses any data for it from then on), and the
 * output says so; an id already erased is said to be one. Ids are bounded as in the log (a user id 1-512 characters,
 * a door's keyed user rl.caller.<identity>.<user_id> included; a case id 1-128): an id no request can carry is a
 * typo, refused before anything is destroyed.
 *
 * Exit codes: 0 erased (key destroyed, never created, or erased before), 2 usage, 3 the stack cannot be reached or
 * refused the request (this identity may not erase: only the bootstrap admin destroys data keys).
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { AppError } from '@runledger/kernel';
import { jetstreamManager } from '@nats-io/jetstream';
import { createDocumentStore, NatsKvDocumentStore } from '@runledger/document-store';
import { OWNER_ID_MAX_LENGTH } from '../../libs/contracts/src/dto/bounds';
import { DATA_KEYS_BUCKET, DataOwner, dataKeyName, KvDataKeyStore } from '../../libs/messaging/src/data-keys';
import { secureEraseSubject } from '../../libs/messaging/src/secure-erase';
import { objectDescriptionsOf, objectMetaToken, objectNames } from '../../libs/messaging/src/object-descriptions';
import { CliConnectionFlags, connectCli, CONNECTION_USAGE, ConnectionRefused, refusalText, shownLocalCredsFile } from './connection';
import { CliError, parseArgs, runCommand, str } from './operator';

const permissions = require('../lib/permissions.js') as { loadTable(): { kv: { collections: string[] }; object_stores: Record<string, string[]> } };

export const USAGE = `usage: runledger erase --user ID | --case ID   ${CONNECTION_USAGE}
exit codes: 0 erased (also an id that never had a key, or one erased before), 2 usage (no id, both, a missing value,
an id longer than any request carries), 3 the stack cannot be reached or this identity may not erase (only the admin)`;
/** Read models that hold sealed values (or ids only): they keep their rows, which read as erased. */
const KEPT = new Set(['audit_events', 'audit_decisions', 'runs_index']);

export function main(args: string[]): Promise<number> {
  return runCommand(async () => {
    const { conn, owner } = parseOwner(args);
    return erase(conn, owner);
  });
}

/** `--user ID` or `--case ID`, one of them, with a value a request could carry: usage errors (exit 2) otherwise. */
function parseOwner(args: string[]): { conn: CliConnectionFlags; owner: DataOwner } {
  const p = parseArgs(args, { valued: ['user', 'case'], switches: [] }, USAGE);
  const fail = (message: string) => new CliError(`${message}\n${USAGE}`, 2);
  if (p.positional.length) throw fail(`unexpected argument ${p.positional[0]}`);
  const user = str(p, 'user');
  const kase = str(p, 'case');
  if (user !== undefined && kase !== undefined) throw fail('erase takes one of --user ID or --case ID, not both');
  const id = user ?? kase;
  if (id === undefined) throw fail('erase needs --user ID or --case ID');
  const owner: DataOwner = { kind: user !== undefined ? 'user' : 'case', id };
  if (id.length > OWNER_ID_MAX_LENGTH[owner.kind]) {
    throw fail(`a ${owner.kind} id is at most ${OWNER_ID_MAX_LENGTH[owner.kind]} characters (no request carries a longer one); this one has ${id.length}: nothing was erased`);
  }
  return { conn: p.conn, owner };
}

async function erase(conn: CliConnectionFlags, owner: DataOwner): Promise<number> {
  // Erasure destroys key material: an admin act (the operator identity changes nothing), as the bootstrap admin.
  const nc = await connectCli(conn, 'runledger-erase', 'admin');
  let keyBefore: 'destroyed' | 'never created' | 'erased before';
  let removed: { rows: number; artifacts: number };
  try {
    await mayErase(nc);
    const keys = new KvDataKeyStore(nc);
    // A slot holding no key (DATA.KEY_UNUSABLE) is erased like one holding a key: its message is overwritten.
    const state = await keys.stateOf(dataKeyName(owner)).catch((err: unknown) => {
      if (err instanceof AppError && err.code === 'DATA.KEY_UNUSABLE') return 'unusable' as const;
      throw err;
    });
    keyBefore = state === 'absent' ? 'never created' : state === 'erased' ? 'erased before' : 'destroyed';
    // The key first: from this moment no service can open or add the owner's data, whatever happens next.
    if (state !== 'erased') await keys.destroy(owner);
    removed = await removePlaintext(nc, owner);
  } catch (err) {
    if (err instanceof ConnectionRefused) throw err;
    throw new ConnectionRefused(`the stack refused the erasure: ${(err as Error).message}`);
  } finally {
    await nc.close();
  }
  const what = {
    destroyed: 'data key destroyed; sealed data now reads as erased',
    'never created': 'it had no data key (nothing was ever sealed for it); erased ahead: any data for it is refused from now on',
    'erased before': 'it was already erased',
  }[keyBefore];
  process.stdout.write(`erased ${owner.kind} ${owner.id}: ${what}; ${removed.rows} stored document(s) and ${removed.artifacts} artifact(s) removed\n`);
  return 0;
}

/**
 * Refuses at once, in words, an identity that may not erase (only the bootstrap admin deletes data-key messages):
 * asks the server for the very right erasure uses (a secure delete in the key bucket) on sequence 0, which names no
 * message, so nothing is deleted. Without this, the first read an operator may not make fails as a transient fault.
 * Exported for tests.
 */
export async function mayErase(nc: NatsConnection): Promise<void> {
  try {
    await nc.request(`$JS.API.STREAM.MSG.DELETE.KV_${DATA_KEYS_BUCKET}`, JSON.stringify({ seq: 0 }), { timeout: 5_000 });
  } catch (err) {
    const refused = refusalText(err, nc, () => `refused: this identity may not erase; erasure destroys key material, the bootstrap admin's act (connect as the admin: --creds with its credentials, ${shownLocalCredsFile('admin')} on the local stack)`);
    if (refused === null) throw err;
    throw new ConnectionRefused(refused);
  }
}

/** Removes the owner's rows from the mutable stores that hold plaintext, and a case's artifacts. Idempotent. */
async function removePlaintext(nc: NatsConnection, owner: DataOwner): Promise<{ rows: number; artifacts: number }> {
  const table = permissions.loadTable();
  const store = createDocumentStore({ natsConnection: nc, mongoUrl: process.env.MONGO_URL });
  const jsm = await jetstreamManager(nc);
  let rows = 0;
  try {
    const field = owner.kind === 'user' ? 'owner_id' : 'case_id';
    for (const name of table.kv.collections.filter((c) => !KEPT.has(c))) {
      const collection = store.collection<Record<string, unknown>>(name);
      for (const doc of await collection.find({ [field]: owner.id })) {
        if (store instanceof NatsKvDocumentStore) {
          // Every revision the bucket still holds is overwritten on disk (rows are sealed since issue 23; a row
          // stored before that was plain text); a KV delete would leave the bytes behind.
          const { stream, subject } = store.storedAt(name, doc.id);
          if (await secureEraseSubject(jsm, stream, subject)) rows++;
        } else if (await collection.delete(doc.id)) rows++;
      }
    }
  } finally {
    await store.close();
  }
  let artifacts = 0;
  if (owner.kind === 'case') {
    for (const bucket of Object.keys(table.object_stores)) {
      // Each artifact's descriptions a writer stored, read past what the bus stored on their subjects (and not by a
      // list, which reads each subject's last message only: object-descriptions.ts).
      for (const name of await objectNames(jsm, bucket)) {
        const written = await objectDescriptionsOf(jsm, bucket, name);
        if (!written.some((info) => (JSON.parse(info.metadata?.artifact_ref ?? '{}') as { case_id?: string }).case_id === owner.id)) continue;
        // An artifact is written once (its chunks and its description), so a secure erase of its messages reaches
        // every byte of it on disk; an object-store delete would only mark them deleted (issue 23).
        for (const info of written) await secureEraseSubject(jsm, `OBJ_${bucket}`, `$O.${bucket}.C.${info.nuid}`);
        await secureEraseSubject(jsm, `OBJ_${bucket}`, `$O.${bucket}.M.${objectMetaToken(name)}`);
        artifacts++;
      }
    }
  }
  return { rows, artifacts };
}

