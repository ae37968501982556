import { DocumentCollection, NatsKvDocumentStore } from '@runledger/document-store';
import { AppError } from '@runledger/kernel';
import { useNatsServer } from '@runledger/testing';
import { FoldedRows } from './folded-rows';

jest.setTimeout(60_000);

interface Row {
  seen: number[];
  done?: boolean;
}

/** `rows` whose writes (create, replace) throw what `fault` returns for each, until it returns null. */
function failingWrites<T extends object>(rows: DocumentCollection<T>, fault: () => Error | null): DocumentCollection<T> {
  return new Proxy(rows, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== 'function') return value;
      if (prop !== 'create' && prop !== 'replace') return value.bind(target);
      return async (...args: unknown[]) => {
        const err = fault();
        if (err) throw err;
        return value.apply(target, args);
      };
    },
  });
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

  it('Issue 22 two folds of one row at once (a failed batch still folding while its commits are handled again) are folded in turn: both steps kept, settled() resolves', async () => {
    const stored = store().collection<Row>('folded_rows');
    // The first fold's read of the stored row is slow (a store fault after a NATS node kill); the second starts meanwhile.
    let releaseRead!: () => void;
    const readReleased = new Promise<void>((resolve) => (releaseRead = resolve));
    let reads = 0;
    const rows = new Proxy(stored, {
      get(target, prop) {
        const value = Reflect.get(target, prop) as unknown;
        if (typeof value !== 'function') return value;
        if (prop !== 'get') return value.bind(target);
        return async (...args: unknown[]) => {
          if (reads++ === 0) await readReleased;
          return value.apply(target, args);
        };
      },
    }) as DocumentCollection<Row>;
    await stored.create('run-7', { seen: [0] });
    const folded = new FoldedRows(rows, (r) => !r.done);
    const slow = folded.fold('run-7', add(1), { holdMs: 60_000 });
    const second = folded.fold('run-7', add(2), { holdMs: 60_000 });
    // What the handler of the second fold's batch returns: its batch is acked once this settles.
    const secondSettled = second.then(() => folded.settled());
    releaseRead();
    await Promise.all([slow, second]);
    await folded.fold('run-7', (row) => ({ ...add(3)(row), done: true }), { holdMs: 60_000 });
    await secondSettled;
    expect((await stored.get('run-7'))?.value).toEqual({ seen: [0, 1, 2, 3], done: true });
  });

  describe('Issue 22 review: a held row that cannot be written is never acked as written', () => {
    const held = async (rows: DocumentCollection<Row>, id: string) => {
      const folded = new FoldedRows(rows, (r) => !r.done);
      await folded.fold(id, add(1), { fresh: true, holdMs: 60_000 });
      // The run ends: its held row is written now (the write the store refuses).
      await folded.fold(id, (row) => ({ ...add(2)(row), done: true }), { holdMs: 60_000 });
      return folded.settled();
    };

    it('a store error that cannot pass (non-retryable) rejects settled() at once: the row is not written and its batch not acked', async () => {
      const rows = store().collection<Row>('folded_rows');
      await expect(held(failingWrites(rows, () => new AppError('REQUEST.TOO_LARGE')), 'run-f1')).rejects.toThrow(AppError);
      expect(await rows.get('run-f1')).toBeNull();
    });

    it('a passing store error is retried as RETRY.ledgerRow says and the row written', async () => {
      const rows = store().collection<Row>('folded_rows');
      let faults = 2;
      await held(failingWrites(rows, () => (faults-- > 0 ? new Error('store unavailable') : null)), 'run-f2');
      expect((await rows.get('run-f2'))?.value).toEqual({ seen: [1, 2], done: true });
    });

    it('a store error that never passes is given up after RETRY.ledgerRow (not retried forever): settled() rejects', async () => {
      const rows = store().collection<Row>('folded_rows');
      let writes = 0;
      await expect(held(failingWrites(rows, () => (writes++, new Error('maximum payload exceeded'))), 'run-f3')).rejects.toThrow('maximum payload exceeded');
      expect(writes).toBe(7); // the first write and RETRY.ledgerRow's six retries
      expect(await rows.get('run-f3')).toBeNull();
    });
  });
});
