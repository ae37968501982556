import type { RunControlRequest, RunSummary } from '@runledger/contracts';
import { AppError } from '@runledger/kernel';
import type { Bus } from '@runledger/messaging';
import type { RunOwner, RunRepository } from '@runledger/runs';
import type { RunControlClient } from '@runledger/service-clients';
import { RunResolver } from './run-resolver';

describe('Issue 23 resolver sweep and hung owners', () => {
  const NOW = Date.parse('2026-01-02T00:00:00Z');
  const row = (run_id: string, run_kind: string): RunSummary => ({ run_id, run_kind, root_run_id: 'root', parent_run_id: 'root', status: 'running', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' }) as RunSummary;
  const rows = [row('tg-1', 'tool_gateway'), row('tg-2', 'tool_gateway'), row('tg-3', 'tool_gateway'), row('dw-1', 'db_write')];
  const owners: Record<string, RunOwner> = { 'tg-1': 'tool-gateway', 'tg-2': 'tool-gateway', 'tg-3': 'tool-gateway', 'dw-1': 'db-write' };

  function resolverWith(answer: (owner: RunOwner, command: RunControlRequest) => Promise<unknown>) {
    const asked: string[] = [];
    const runs = { ownerOf: async (id: string) => owners[id], load: async () => ({ version: 3, state: {}, events: [] }) } as unknown as RunRepository;
    // rl.runs.list: the idle rows once (as running), no children.
    const bus = { request: async (_subject: string, q: { status?: string }) => ({ runs: q.status === 'running' ? rows : [], next_cursor: null }) } as unknown as Bus;
    const control = { send: (owner: RunOwner, command: RunControlRequest) => (asked.push(`${owner}:${command.run_id}`), answer(owner, command)) } as unknown as RunControlClient;
    const resolver = new RunResolver(runs, bus, control, { now: () => new Date(NOW) }, { idleMs: 60_000, graceMs: 60_000, intervalMs: 0, minIdleMs: 60_000 });
    return { resolver, asked };
  }

  it.each(['RUN.TIMEOUT', 'DEPENDENCY.DOWN'])('Issue 23 an owner that answered %s once is not asked again in the same sweep: its other runs are left for the next sweep, other owners are still asked', async (code) => {
    const { resolver, asked } = resolverWith(async (owner, command) => {
      if (owner === 'tool-gateway') throw new AppError(code as 'RUN.TIMEOUT');
      return { run_id: command.run_id, outcome: 'left', status: 'running' };
    });
    const result = await resolver.sweep(60_000, 'test');
    expect(asked).toEqual(['tool-gateway:tg-1', 'db-write:dw-1']);
    expect(result).toEqual({ open: 4, resolved: [], left_to_worker: 4 });
  });

  it('Issue 23 the next sweep asks the owner again', async () => {
    let down = true;
    const { resolver, asked } = resolverWith(async (owner, command) => {
      if (down) throw new AppError('DEPENDENCY.DOWN');
      return { run_id: command.run_id, outcome: 'left', status: 'running' };
    });
    await resolver.sweep(60_000, 'test');
    down = false;
    asked.length = 0;
    await resolver.sweep(60_000, 'test');
    expect(asked).toEqual(['tool-gateway:tg-1', 'tool-gateway:tg-2', 'tool-gateway:tg-3', 'db-write:dw-1']);
  });
});
