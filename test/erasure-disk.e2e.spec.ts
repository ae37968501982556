/**
 * Issue 23, erasure that survives a disk read (README "Erasure"): after `runledger erase --user`, no byte under the
 * stack's data directory (the nats-server store: every stream's block files, the KV buckets, the object store, and
 * the audit key beside them) holds the user's text or the user's data key, read once the stack has stopped. Before
 * issue 23 the key's bytes stayed in the data-keys bucket's block file after its purge, and task rows were stored in
 * plain text: a disk read undid the erasure.
 */
import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dataKeyName, KvDataKeyStore } from '@runledger/messaging';
import { runCli } from './support/cli';
import { TestStack } from './support/stack';
import { Conversation } from './support/task-assistant';

jest.setTimeout(300_000);

/** Every regular file under `dir`, recursively. */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/** For each needle, the files whose bytes contain it (relative to `dir`). */
async function filesHolding(dir: string, needles: Record<string, Buffer>): Promise<Record<string, string[]>> {
  const hits: Record<string, string[]> = Object.fromEntries(Object.keys(needles).map((n) => [n, []]));
  for (const file of await filesUnder(dir)) {
    const bytes = await readFile(file);
    for (const [name, needle] of Object.entries(needles)) if (bytes.includes(needle)) hits[name].push(file.slice(dir.length + 1));
  }
  return hits;
}

describe('Issue 23 erasure that survives a disk read', () => {
  const tag = randomUUID().slice(0, 8);
  const phone = `+1 415 555 ${tag.slice(0, 4)}`;
  const task = `call the oncologist at ${phone} about the scan ${tag}`;
  const renamed = `call the oncologist ${tag} back`;
  const otherTask = `water the ficus ${tag}`;

  it('Issue 23 erasure: after erase --user, no byte of the stopped stack\'s data directory holds the user\'s task text or data key; another user\'s key is still there', async () => {
    const stack = await TestStack.start();
    let hits: Record<string, string[]> | undefined;
    try {
      const alice = new Conversation(stack, `u-alice-${tag}`);
      const bob = new Conversation(stack, `u-bob-${tag}`);
      await alice.add(task);
      // A second revision of the row: the bucket drops the first one without erasing its bytes.
      const update = await alice.say(`rename ${task} to ${renamed}`);
      expect(JSON.stringify(update)).toContain(renamed);
      await bob.add(otherTask);
      expect(await alice.list()).toEqual([renamed]);

      const keys = new KvDataKeyStore(stack.nc);
      const aliceKey = await keys.stateOf(dataKeyName({ kind: 'user', id: alice.user_id }));
      const bobKey = await keys.stateOf(dataKeyName({ kind: 'user', id: bob.user_id }));
      if (!Buffer.isBuffer(aliceKey) || !Buffer.isBuffer(bobKey)) throw new Error('both users should have a data key');

      const erased = await runCli(stack.url, ['erase', '--user', alice.user_id], stack.cliEnv('admin'));
      expect(erased.stderr).toBe('');
      expect(erased.code).toBe(0);
      expect(erased.stdout).toMatch(/1 stored document\(s\)/);

      await stack.stop({
        whileStopped: async (storeDir) => {
          hits = await filesHolding(storeDir, {
            phone: Buffer.from(phone), task: Buffer.from('oncologist'),
            aliceKey, aliceKeyBase64: Buffer.from(aliceKey.toString('base64')),
            bobKeyBase64: Buffer.from(bobKey.toString('base64')),
          });
        },
      });
    } catch (err) {
      await stack.stop().catch(() => undefined);
      throw err;
    }
    // The scanner reads the store: the other user's key is in the data-keys bucket's block file.
    expect(hits!.bobKeyBase64.length).toBeGreaterThan(0);
    expect({ phone: hits!.phone, task: hits!.task, aliceKey: hits!.aliceKey, aliceKeyBase64: hits!.aliceKeyBase64 }).toEqual({ phone: [], task: [], aliceKey: [], aliceKeyBase64: [] });
  });
});
