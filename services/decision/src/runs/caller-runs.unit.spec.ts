import type { StoredEvent } from '@runledger/event-log';
import type { ServiceRuntime } from '@runledger/messaging';
import type { LoadedRun, RunRepository } from '@runledger/runs';
import { CallerRuns } from './caller-runs';
import type { RunCancellation } from './run-cancellation';

const RUN = '00000000-0000-4000-8000-000000000001';

/** A run whose commits (log sequences 10, 11, …) hold `sizes` events each; the last one ends it. */
function run(sizes: number[]): LoadedRun {
  const events: StoredEvent[] = sizes.flatMap((n, c) => Array.from({ length: n }, (_, index) => ({
    type: `E${c}.${index}`, data: {}, metadata: { recorded_at: '2026-11-27T00:00:00.000Z', stream_id: RUN } as StoredEvent['metadata'], seq: 10 + c, index, subject: `rl.log.run.decision.${RUN}`,
  })));
  return { state: { status: 'completed', run: { requested_by: 'caller' } }, events, version: 10 + sizes.length - 1 } as unknown as LoadedRun;
}

const callerRuns = (loaded: LoadedRun) => new CallerRuns({} as ServiceRuntime, { load: async () => loaded } as unknown as RunRepository, {} as RunCancellation);

describe('rl.caller.<caller>.runs.events: limit counts events, next resumes exactly', () => {
  it('answers at most `limit` events, also when a commit holds more, and the pages followed with next (and next_index) give every event once, in log order', async () => {
    const loaded = run([1, 3, 2, 1]);
    const runs = callerRuns(loaded);
    const seen: string[] = [];
    const pages: Array<{ n: number; next: number; next_index?: number; terminal: boolean }> = [];
    let q: { after?: number; after_index?: number } = { after: 0 };
    for (let i = 0; i < 10; i++) {
      const page = await runs.events('caller', { run_id: RUN, ...q, limit: 2 });
      seen.push(...page.events.map((e) => e.type));
      pages.push({ n: page.events.length, next: page.next, ...(page.next_index !== undefined ? { next_index: page.next_index } : {}), terminal: page.terminal });
      if (page.terminal) break;
      q = { after: page.next, ...(page.next_index !== undefined ? { after_index: page.next_index } : {}) };
    }
    expect(seen).toEqual(loaded.events.map((e) => e.type));
    expect(pages).toEqual([
      { n: 2, next: 11, next_index: 0, terminal: false }, // cut inside commit 11 (3 events)
      { n: 2, next: 11, terminal: false }, // the rest of commit 11: whole now
      { n: 2, next: 12, terminal: false },
      { n: 1, next: 13, terminal: true },
    ]);
  });

  it('without after_index, `after` still means after the whole commit; an answer that ends at a commit end has no next_index', async () => {
    const runs = callerRuns(run([3, 2]));
    const page = await runs.events('caller', { run_id: RUN, after: 10 });
    expect(page.events.map((e) => [e.seq, e.index])).toEqual([[11, 0], [11, 1]]);
    expect(page).toMatchObject({ next: 11, terminal: true });
    expect(page).not.toHaveProperty('next_index');
  });

  it('nothing after the position: next is the position asked, and the run is terminal once everything up to its end was given', async () => {
    const runs = callerRuns(run([3]));
    expect(await runs.events('caller', { run_id: RUN, after: 10, after_index: 2 })).toMatchObject({ events: [], next: 10, next_index: 2, terminal: true });
    expect(await runs.events('caller', { run_id: RUN, after: 10, after_index: 1 })).toMatchObject({ events: [{ seq: 10, index: 2 }], next: 10, terminal: true });
  });
});
