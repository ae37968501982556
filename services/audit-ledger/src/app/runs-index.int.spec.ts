/**
 * Issue 25: an operator finds a failed run among 10,000 by time range and text, through the runs index as
 * rl.runs.list serves it (RunsIndexService over the embedded store, NATS KV, on a real nats-server).
 */
import { type DocumentCollection, NatsKvDocumentStore } from '@runledger/document-store';
import { initialRunSummary, RunSummary } from '@runledger/runs';
import { useNatsServer } from '@runledger/testing';
import { RUNS_INDEX, RunsIndexService } from './runs-index.service';

jest.setTimeout(120_000);

const RUNS = 10_000;
const at = (i: number) => new Date(Date.UTC(2026, 10, 20, 0, 0, 0) + i * 60_000).toISOString(); // one a minute, ~7 days
const id = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

function row(i: number): RunSummary {
  const failed = i % 1_000 === 500; // ten failed runs, one a day or so
  return {
    ...initialRunSummary(id(i)),
    agent_name: i % 3 ? 'TASK_ASSISTANT' : 'INTAKE_AGENT', run_kind: 'agent', root_run_id: id(i), parent_run_id: null,
    user_id: `user-${i % 50}`, case_id: null, created_at: at(i), updated_at: at(i), ended_at: at(i), duration_ms: 40,
    status: failed ? 'failed' : 'completed', failed,
    error_code: failed ? 'TOOL.FAILED' : null, error_message: failed ? `the calendar said no to run ${i}` : null,
  };
}

describe('Issue 25 runs search: rl.runs.list over 10,000 runs in the runs index', () => {
  const nats = useNatsServer();
  let index: RunsIndexService;
  let rows: DocumentCollection<RunSummary>;

  beforeAll(async () => {
    const store = new NatsKvDocumentStore(nats.nc);
    rows = store.collection<RunSummary>(RUNS_INDEX);
    for (let i = 0; i < RUNS; i += 500) await Promise.all(Array.from({ length: 500 }, (_, j) => rows.put(id(i + j), row(i + j))));
    index = new RunsIndexService(store, { nc: nats.nc });
  });

  it('Issue 25 runs search: a failed run is found among 10,000 by time range and text in its error message', async () => {
    const page = await index.list({ since: at(7_000), until: at(8_000), text: 'CALENDAR SAID NO', status: 'failed' });
    expect(page.matched).toBe(1);
    expect(page.runs.map((r) => r.run_id)).toEqual([id(7_500)]);
  });

  it('Issue 25 runs search: text matches the run id, agent, user and error code; the time range bounds are [since, until)', async () => {
    expect((await index.list({ text: id(1_234).slice(-8) })).runs.map((r) => r.run_id)).toEqual([id(1_234)]);
    expect((await index.list({ text: 'tool.failed' })).matched).toBe(10);
    expect((await index.list({ text: 'intake', since: at(0), until: at(30) })).matched).toBe(10);
    expect((await index.list({ text: 'user-7', since: at(0), until: at(100) })).runs.every((r) => r.user_id === 'user-7')).toBe(true);
    expect((await index.list({ since: at(100), until: at(101) })).runs.map((r) => r.run_id)).toEqual([id(100)]);
  });

  it('Issue 25 runs search: cursor pages of a filtered search visit every matching run once, newest first', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await index.list({ agent_name: 'INTAKE_AGENT', limit: 500, ...(cursor ? { cursor } : {}) });
      expect(page.matched).toBe(3_334);
      seen.push(...page.runs.map((r) => r.run_id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toHaveLength(3_334);
    expect(new Set(seen).size).toBe(3_334);
    expect(seen[0]).toBe(id(9_999));
    expect(seen[seen.length - 1]).toBe(id(0));
  });

  it('Issue 25 runs search: a text of only spaces is no filter at all; a cursor not made by rl.runs.list is REQUEST.INVALID', async () => {
    expect((await index.list({ text: '   ', limit: 1 })).matched).toBe(RUNS);
    await expect(index.list({ cursor: 'nonsense' })).rejects.toMatchObject({ code: 'REQUEST.INVALID' });
  });

  it('Issue 25 runs search: a list sees every row written before it was asked, by whichever writer, and no deleted row', async () => {
    await index.list({ limit: 1 }); // the index has read the bucket up to here
    const other = new NatsKvDocumentStore(nats.nc).collection<RunSummary>(RUNS_INDEX); // another ledger instance
    await other.put(id(10_001), { ...row(10_001), error_message: 'written elsewhere meanwhile' });
    await other.put(id(7_500), { ...row(7_500), error_message: 'the calendar changed its mind' });
    await rows.delete(id(9_999));
    const [elsewhere, changed, deleted] = await Promise.all([
      index.list({ text: 'written elsewhere' }), index.list({ text: 'calendar said no' }), index.list({ text: id(9_999) }),
    ]);
    expect(elsewhere.runs.map((r) => r.run_id)).toEqual([id(10_001)]);
    expect(changed.runs.map((r) => r.run_id)).not.toContain(id(7_500));
    expect(deleted.matched).toBe(0);
    expect((await index.list({ limit: 1 })).matched).toBe(RUNS);
  });
});

describe('Issue 25 runs search on a fresh stack: nothing indexed yet', () => {
  const nats = useNatsServer();

  it('Issue 25 runs search: a runs index nobody has written to lists no runs (not DEPENDENCY.DOWN), and the next list sees the first row', async () => {
    const store = new NatsKvDocumentStore(nats.nc);
    const index = new RunsIndexService(store, { nc: nats.nc });
    expect((await index.list({})).runs).toEqual([]);
    await store.collection<RunSummary>(RUNS_INDEX).put(id(1), row(1));
    expect((await index.list({})).runs.map((r) => r.run_id)).toEqual([id(1)]);
  });
});
