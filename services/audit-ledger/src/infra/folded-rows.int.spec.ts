import { NatsKvDocumentStore } from '@runledger/document-store';
import { useNatsServer } from '@runledger/testing';
import { FoldedRows } from './folded-rows';

jest.setTimeout(60_000);

interface Row {
  seen: number[];
  done?: boolean;
}

const add = (n: number) => (row: Row | null): Row => (row?.seen.includes(n) ? row : { seen: [...(row?.seen ?? []), n] });

describe('FoldedRows: the ledger read models kept in memory while a run is open', () => {
  const nats = useNatsServer();
  const store = () => new NatsKvDocumentStore(nats.nc);

  it('a row another ledger instance wrote meanwhile (the consumer lease moved and came back) is read afresh, never overwritten', async () => {
    const rows = store().collection<Row>('folded_rows');
    const first = new FoldedRows(rows, (r) => !r.done);
    const second = new FoldedRows(rows, (r) => !r.done);
    await first.fold('run-1', add(1)); // first keeps the row it wrote
    await second.fold('run-1', add(2)); // the other instance adds to the stored row
    await first.fold('run-1', add(3)); // first's kept revision is stale: a conflict, folded again on the stored row
    expect((await rows.get('run-1'))?.value.seen).toEqual([1, 2, 3]);
  });

  it('an unchanged row is not written again', async () => {
    const rows = store().collection<Row>('folded_rows');
    const folded = new FoldedRows(rows, () => true);
    await folded.fold('run-2', add(1));
    const revision = (await rows.get('run-2'))?.revision;
    expect(await folded.fold('run-2', add(1))).toBeNull();
    expect((await rows.get('run-2'))?.revision).toBe(revision);
  });

  it("a run's creation folded again after a restart (fresh: no read first) keeps the stored row: the create conflicts and the row is folded on what is stored", async () => {
    const rows = store().collection<Row>('folded_rows');
    await new FoldedRows(rows, () => true).fold('run-3', add(1), { fresh: true });
    await new FoldedRows(rows, () => true).fold('run-3', add(2));
    // A new ledger instance gets the creation batch again (its events redelivered) and is told the row is fresh.
    const restarted = new FoldedRows(rows, () => true);
    await restarted.fold('run-3', (row) => add(3)(add(1)(row)), { fresh: true });
    expect((await rows.get('run-3'))?.value.seen).toEqual([1, 2, 3]);
  });
  it('Issue 22 an open run\'s row is held unwritten and written once, when the run ends; settled() waits for the write', async () => {
    const rows = store().collection<Row>('folded_rows');
    const folded = new FoldedRows(rows, (r) => !r.done);
    await folded.fold('run-4', add(1), { fresh: true, holdMs: 60_000 });
    await folded.fold('run-4', add(2), { holdMs: 60_000 });
    expect(await rows.get('run-4')).toBeNull();
    let settled = false;
    const done = folded.settled().then(() => (settled = true));
    await folded.fold('run-4', (row) => ({ ...add(3)(row), done: true }), { holdMs: 60_000 });
    await done;
    expect(settled).toBe(true);
    const stored = await rows.get('run-4');
    expect(stored?.value).toEqual({ seen: [1, 2, 3], done: true });
    expect(stored?.revision).toBeGreaterThan(0);
  });

  it('Issue 22 a row written at once (its run ended in the batch) is folded once: the step is not run again for the write', async () => {
    const rows = store().collection<Row>('folded_rows');
    const folded = new FoldedRows(rows, (r) => !r.done);
    let steps = 0;
    await folded.fold('run-6', (row) => (steps++, { ...add(1)(row), done: true }), { fresh: true, holdMs: 60_000 });
    expect({ steps, stored: (await rows.get('run-6'))?.value }).toEqual({ steps: 1, stored: { seen: [1], done: true } });
  });

  it('Issue 22 a row held for a run that stays open is written after holdMs, and folded on after that', async () => {
    const rows = store().collection<Row>('folded_rows');
    const folded = new FoldedRows(rows, (r) => !r.done);
    await folded.fold('run-5', add(1), { fresh: true, holdMs: 20 });
    await folded.settled();
    expect((await rows.get('run-5'))?.value.seen).toEqual([1]);
    await folded.fold('run-5', add(2), { holdMs: 20 });
    await folded.settled();
    expect((await rows.get('run-5'))?.value.seen).toEqual([1, 2]);
  });
});
