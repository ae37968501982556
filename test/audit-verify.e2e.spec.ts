import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { computeEntryHash, type ChainEntry } from '@runledger/governance';
import { tempDir, type TempDir } from '@runledger/testing';
import { TestStack } from './support/stack';

jest.setTimeout(180_000);

const CLI = join(__dirname, '..', 'scripts', 'runledger.js');

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

describe('Audit ledger: `runledger audit verify` reports the first broken link of the hash chain', () => {
  let stack: TestStack;
  let dir: TempDir;
  let exported: string;
  let chain: ChainEntry[];

  /** The operator command as operators run it: a separate node process against the stack's NATS. */
  const runledger = (...args: string[]): Promise<CliRun> =>
    new Promise((resolve) => {
      execFile(process.execPath, [CLI, 'audit', ...args], { env: { ...process.env, ...stack.cliEnv('operator') }, timeout: 60_000 }, (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      });
    });
  const copy = (name: string, entries: readonly ChainEntry[]): string => {
    const file = join(dir.path, name);
    writeFileSync(file, entries.map((e) => JSON.stringify(e)).join('\n') + '\n');
    return file;
  };
  const clone = (): ChainEntry[] => JSON.parse(JSON.stringify(chain)) as ChainEntry[];

  beforeAll(async () => {
    stack = await TestStack.start();
    dir = await tempDir('audit-verify-');
    // Task-assistant runs give the chain real entries: runs, authorisations, tool and db_write audits, outcomes.
    const runIds: string[] = [];
    for (const task of ['water the plants', 'call the plumber', 'renew the passport']) {
      const reply = await stack.request<{ run_id: string }>('agents.task-assistant.process', { user_id: 'u-audit', conversation_id: randomUUID(), message: `add task ${task}` });
      expect(reply.ok).toBe(true);
      runIds.push(reply.body.run_id);
    }
    // The ledger chains in log order: once the last run's outcome is indexed, everything before it is chained.
    await stack.waitFor(async () => {
      const q = await stack.request<{ events?: Array<{ type: string }> }>('rl.audit.query', { run_id: runIds[runIds.length - 1] });
      return q.body.events?.some((e) => e.type === 'RunCompleted');
    }, 20_000);
  });
  afterAll(async () => {
    await stack?.stop();
    await dir?.remove();
  });

  it('Audit ledger: the live chain and an exported copy both verify OK, with the same length and head', async () => {
    const live = await runledger('verify');
    expect(live.code).toBe(0);
    const [, liveCount, liveHead] = /^audit chain OK: (\d+) entries, head ([0-9a-f]{64})$/m.exec(live.stdout) ?? [];
    expect(Number(liveCount)).toBeGreaterThanOrEqual(20);

    exported = join(dir.path, 'chain.jsonl');
    const exportRun = await runledger('export', '--out', exported);
    expect(exportRun.code).toBe(0);
    chain = readFileSync(exported, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as ChainEntry);
    expect(chain.map((e) => e.seq)).toEqual(chain.map((_, i) => i + 1));
    // The copy holds the chain the live check saw (it may only have grown since): same entry at the live head.
    expect(chain.length).toBeGreaterThanOrEqual(Number(liveCount));
    expect(chain[Number(liveCount) - 1].entry_hash).toBe(liveHead);

    const offline = await runledger('verify', '--file', exported);
    expect(offline).toMatchObject({ code: 0, stdout: `audit chain OK: ${chain.length} entries, head ${chain[chain.length - 1].entry_hash}\n` });
  });

  // Entry 5 sits among the first run's events; every tampering below touches a copy, never the log.
  const K = 5;

  it('Audit ledger: an edited entry is caught at that entry (hash_mismatch)', async () => {
    const entries = clone();
    (entries[K - 1].body.data as Record<string, unknown>).tampered = true;
    const r = await runledger('verify', '--file', copy('edited.jsonl', entries));
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^audit chain BROKEN at entry ${K}: hash_mismatch`));
  });

  it('Audit ledger: a deleted entry is caught where it is missing (sequence_gap)', async () => {
    const entries = clone();
    entries.splice(K - 1, 1);
    const r = await runledger('verify', '--file', copy('deleted.jsonl', entries));
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^audit chain BROKEN at entry ${K}: sequence_gap`));
  });

  it('Audit ledger: two swapped entries are caught at the first of them (reordered)', async () => {
    const entries = clone();
    [entries[K - 1], entries[K]] = [entries[K], entries[K - 1]];
    const r = await runledger('verify', '--file', copy('reordered.jsonl', entries));
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^audit chain BROKEN at entry ${K}: reordered`));
  });

  it('Audit ledger: an edited entry whose hash was recomputed is caught at the next entry, whose link no longer matches (prev_link_mismatch)', async () => {
    const entries = clone();
    const forged = entries[K - 1];
    forged.body = { ...forged.body, type: 'RunCompleted' };
    forged.entry_hash = computeEntryHash(forged);
    const r = await runledger('verify', '--file', copy('rehashed.jsonl', entries));
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^audit chain BROKEN at entry ${K + 1}: prev_link_mismatch`));
  });
});
