/**
 * Issue 23, erasure that survives a disk read (README "Erasure"): after `runledger erase`, no byte under the stack's
 * data directory (the nats-server store: every stream's block files, the KV buckets, the object store, and the audit
 * key the harness keeps beside them) holds the owner's data or the owner's data key, read once the stack has
 * stopped. Before issue 23 the key's bytes stayed in the data-keys bucket's block file after its purge, and task rows
 * were stored in plain text: a disk read undid the erasure.
 */
import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dataKeyName, type DataOwner, KvDataKeyStore } from '@runledger/messaging';
import { runCli } from './support/cli';
import { CASE_INPUTS, policyVersionsIn, SHIPPED_POLICY_DIR, startRun, uploadCase } from './support/governed-runs';
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

/** The owner's data key in the forms a disk read could find it: its bytes and the base64 the bucket stores. */
async function keyNeedles(stack: TestStack, owner: DataOwner, name: string): Promise<Record<string, Buffer>> {
  const key = await new KvDataKeyStore(stack.nc).stateOf(dataKeyName(owner));
  if (!Buffer.isBuffer(key)) throw new Error(`${owner.kind} ${owner.id} should have a data key`);
  return { [`${name} key`]: key, [`${name} key (base64)`]: Buffer.from(key.toString('base64')) };
}

/**
 * Erases the owner (as the admin, through the CLI), stops the stack and scans its store for the needles; returns the
 * files each needle was found in, and the CLI's answer. The stack is stopped either way.
 */
async function eraseStopAndScan(stack: TestStack, owner: DataOwner, needles: Record<string, Buffer>) {
  let erased: Awaited<ReturnType<typeof runCli>> | undefined;
  let hits: Record<string, string[]> = {};
  try {
    erased = await runCli(stack.url, ['erase', `--${owner.kind}`, owner.id], stack.cliEnv('admin'));
  } finally {
    await stack.stop({ whileStopped: async (storeDir) => void (hits = await filesHolding(storeDir, needles)) });
  }
  return { erased, hits };
}

describe('Issue 23 erasure that survives a disk read', () => {
  const tag = randomUUID().slice(0, 8);

  it('Issue 23 erasure: after erase --user, no byte of the stopped stack\'s data directory holds the user\'s task text or data key; another user\'s key is still there', async () => {
    const phone = `+1 415 555 ${tag.slice(0, 4)}`;
    const task = `call the oncologist at ${phone} about the scan ${tag}`;
    const renamed = `call the oncologist ${tag} back`;
    const stack = await TestStack.start();
    let needles: Record<string, Buffer>;
    const alice = new Conversation(stack, `u-alice-${tag}`);
    try {
      const bob = new Conversation(stack, `u-bob-${tag}`);
      await alice.add(task);
      // A second revision of the row (the bucket keeps both, KV_HISTORY; erase overwrites each one it holds).
      expect(JSON.stringify(await alice.say(`rename ${task} to ${renamed}`))).toContain(renamed);
      await bob.add(`water the ficus ${tag}`);
      expect(await alice.list()).toEqual([renamed]);
      needles = {
        phone: Buffer.from(phone), 'task text': Buffer.from('oncologist'),
        ...(await keyNeedles(stack, { kind: 'user', id: alice.user_id }, 'alice')),
        ...(await keyNeedles(stack, { kind: 'user', id: bob.user_id }, 'bob')),
      };
    } catch (err) {
      await stack.stop().catch(() => undefined);
      throw err;
    }
    const { erased, hits } = await eraseStopAndScan(stack, { kind: 'user', id: alice.user_id }, needles);
    expect(erased).toMatchObject({ code: 0, stderr: '' });
    expect(erased!.stdout).toMatch(/1 stored document\(s\)/);
    // The scanner reads the store: the other user's key is in the data-keys bucket's block file.
    expect(hits['bob key (base64)'].length).toBeGreaterThan(0);
    const { 'bob key': _bobKey, 'bob key (base64)': _bobKey64, ...alices } = hits;
    expect(alices).toEqual({ phone: [], 'task text': [], 'alice key': [], 'alice key (base64)': [] });
  });

  it('Issue 23 erasure: after erase --case, no byte of the stopped stack\'s data directory holds the case\'s artifacts, documents or data key', async () => {
    const caseId = `case-disk-${tag}`;
    const stack = await TestStack.start();
    let needles: Record<string, Buffer>;
    try {
      const inputs = await uploadCase(stack, caseId, policyVersionsIn(SHIPPED_POLICY_DIR));
      const intake = await startRun(stack, { agent_name: 'INTAKE_AGENT', case_id: caseId, input_artifacts: [inputs.form, inputs.recording, inputs.document], parameters: {} });
      expect(intake.outcome).toBe('success');
      needles = {
        'client name': Buffer.from(CASE_INPUTS.form.name), 'client email': Buffer.from(CASE_INPUTS.form.contact.email),
        'manager name': Buffer.from('Tom Baker'), 'agreement text': Buffer.from('in retaliation for a wage complaint'),
        ...(await keyNeedles(stack, { kind: 'case', id: caseId }, 'case')),
      };
      // The scanner finds what it looks for: the artifacts (stored in plain text) reach the block files while the
      // stack runs, as the server flushes them.
      await stack.waitFor(async () => (await filesHolding(stack.nats.storeDir, { name: needles['client name'] })).name.length > 0, 30_000);
    } catch (err) {
      await stack.stop().catch(() => undefined);
      throw err;
    }
    const { erased, hits } = await eraseStopAndScan(stack, { kind: 'case', id: caseId }, needles);
    expect(erased).toMatchObject({ code: 0, stderr: '' });
    // The three inputs and what the intake run stored of the case.
    expect(Number(/(\d+) artifact\(s\) removed/.exec(erased!.stdout)?.[1])).toBeGreaterThanOrEqual(3);
    expect(hits).toEqual(Object.fromEntries(Object.keys(needles).map((n) => [n, []])));
  });
});
