import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { freePort, meetingInPairs, tempDir, waitUntil } from './helpers';

describe('waitUntil', () => {
  it('resolves with the first truthy value, retrying through falsy results and errors', async () => {
    let calls = 0;
    const value = await waitUntil(
      async () => {
        calls++;
        if (calls === 1) throw new Error('not connected yet');
        return calls >= 3 ? { ready: calls } : null;
      },
      { timeoutMs: 1000, intervalMs: 5 },
    );
    expect(value).toEqual({ ready: 3 });
  });

  it('times out naming what it waited for and the last error', async () => {
    // A waitUntil that ignored its timeout would hang and hit jest's own timeout: no wall-clock bound needed.
    await expect(
      waitUntil(
        () => {
          throw new Error('projection lagging');
        },
        { timeoutMs: 80, intervalMs: 10, description: 'run projection' },
      ),
    ).rejects.toThrow('waitUntil timed out after 80 ms for run projection; last error: projection lagging');
  });
});

describe('freePort', () => {
  it('returns distinct ports that can be bound on 127.0.0.1', async () => {
    const ports = await Promise.all([freePort(), freePort(), freePort()]);
    expect(new Set(ports).size).toBe(3);
    for (const port of ports) {
      const srv = createServer();
      await new Promise<void>((resolve, reject) => {
        srv.once('error', reject);
        srv.listen(port, '127.0.0.1', () => resolve());
      });
      await new Promise((resolve) => srv.close(resolve));
    }
  });
});

describe('tempDir', () => {
  it('creates a fresh directory and remove() deletes it with its contents', async () => {
    const a = await tempDir();
    const b = await tempDir();
    expect(a.path).not.toBe(b.path);
    writeFileSync(join(a.path, 'file.txt'), 'x');
    await a.remove();
    await a.remove(); // idempotent
    expect(existsSync(a.path)).toBe(false);
    expect(existsSync(b.path)).toBe(true);
    await b.remove();
  });
});

describe('meetingInPairs', () => {
  it('lets the first caller of a key go on only with the second, both in the same tick; a third is not held', async () => {
    const meet = meetingInPairs();
    const went: string[] = [];
    const first = meet('k').then(() => went.push('first'));
    void meet('other-key').then(() => went.push('alone on another key'));
    await new Promise(setImmediate); // every pending callback has run: the first is still held
    expect(went).toEqual([]);
    await Promise.all([first, meet('k').then(() => went.push('second'))]);
    await meet('k');
    expect(went).toEqual(['first', 'second']);
  });
});
