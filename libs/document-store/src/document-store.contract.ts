import { describeFindContract, type ContractContext } from './document-store.contract-find';
import { DocumentConflictError, DocumentInvalidError, DocumentStoreError, type DocumentStore } from './types';

interface Run {
  status: string;
  step?: number;
  tags?: string[];
}

let collectionCounter = 0;
/** A fresh collection name per test, unique across runs, so a reused MongoDB database stays isolated. */
function uniqueName(label: string): string {
  return `${label}_${Date.now().toString(36)}_${process.pid}_${++collectionCounter}`;
}

/**
 * The one behaviour suite every {@link DocumentStore} adapter must pass. Call it from
 * an adapter's spec file with a factory for a connected store; the store is closed
 * after the suite.
 */
export function describeDocumentStoreContract(name: string, factory: () => Promise<DocumentStore>): void {
  describe(`DocumentStore contract: ${name}`, () => {
    const ctx: ContractContext = { store: undefined as unknown as DocumentStore, uniqueName };
    beforeAll(async () => {
      ctx.store = await factory();
    });
    afterAll(async () => {
      await ctx.store?.close();
    });
    const runs = () => ctx.store.collection<Run>(uniqueName('runs'));

    it('get returns null for an id that was never written', async () => {
      expect(await runs().get('nope')).toBeNull();
    });

    it('create is idempotent: a second create returns the first document unchanged', async () => {
      const col = runs();
      const first = await col.create('r1', { status: 'queued' });
      expect(first.created).toBe(true);
      expect(first.doc).toEqual({ id: 'r1', revision: expect.any(Number), value: { status: 'queued' } });
      expect(first.doc.revision).toBeGreaterThan(0);

      const again = await col.create('r1', { status: 'running' });
      expect(again).toEqual({ created: false, doc: first.doc });
      expect(await col.get('r1')).toEqual(first.doc);
    });

    it('concurrent creates of one id: exactly one wins, all see the winner', async () => {
      const col = runs();
      const results = await Promise.all([1, 2, 3, 4, 5].map((n) => col.create('same', { status: `writer-${n}` })));
      expect(results.filter((r) => r.created)).toHaveLength(1);
      const winner = results.find((r) => r.created)!.doc;
      for (const r of results) expect(r.doc).toEqual(winner);
    });

    it('replace with the current revision bumps it; a stale revision conflicts and changes nothing', async () => {
      const col = runs();
      const { doc } = await col.create('r1', { status: 'queued' });
      const next = await col.replace('r1', { status: 'running', step: 1 }, doc.revision);
      expect(next.value).toEqual({ status: 'running', step: 1 });
      expect(next.revision).toBeGreaterThan(doc.revision);
      expect(await col.get('r1')).toEqual(next);

      const err = await col.replace('r1', { status: 'failed' }, doc.revision).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DocumentConflictError);
      expect(err).toMatchObject({ code: 'STORE.CONFLICT', id: 'r1', expectedRevision: doc.revision, actualRevision: next.revision });
      expect(await col.get('r1')).toEqual(next);
    });

    it('concurrent replaces from the same revision: exactly one succeeds', async () => {
      const col = runs();
      const { doc } = await col.create('r1', { status: 'queued' });
      const outcomes = await Promise.allSettled(
        ['a', 'b', 'c', 'd'].map((w) => col.replace('r1', { status: `by-${w}` }, doc.revision)),
      );
      const won = outcomes.filter((o) => o.status === 'fulfilled');
      expect(won).toHaveLength(1);
      for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(DocumentConflictError);
      expect((await col.get('r1'))!.value).toEqual((won[0] as PromiseFulfilledResult<{ value: Run }>).value.value);
    });

    it('replace of a missing document is a conflict with actualRevision null', async () => {
      await expect(runs().replace('ghost', { status: 'x' }, 1)).rejects.toMatchObject({
        code: 'STORE.CONFLICT',
        actualRevision: null,
      });
    });

    it('put upserts unconditionally and every write increases the revision', async () => {
      const col = runs();
      const a = await col.put('p1', { status: 'queued' });
      const b = await col.put('p1', { status: 'done' });
      expect(b.revision).toBeGreaterThan(a.revision);
      expect(await col.get('p1')).toEqual(b);
      const c = await col.replace('p1', { status: 'archived' }, b.revision);
      expect(c.revision).toBeGreaterThan(b.revision);
    });

    it('delete: true once, then false; honours expectedRevision; the id can be created again', async () => {
      const col = runs();
      const { doc } = await col.create('d1', { status: 'queued' });
      const updated = await col.replace('d1', { status: 'running' }, doc.revision);

      await expect(col.delete('d1', doc.revision)).rejects.toBeInstanceOf(DocumentConflictError);
      expect(await col.get('d1')).toEqual(updated);

      expect(await col.delete('d1', updated.revision)).toBe(true);
      expect(await col.get('d1')).toBeNull();
      expect(await col.delete('d1')).toBe(false);
      expect(await col.delete('d1', updated.revision)).toBe(false);
      await expect(col.replace('d1', { status: 'zombie' }, updated.revision)).rejects.toBeInstanceOf(DocumentConflictError);

      const recreated = await col.create('d1', { status: 'fresh' });
      expect(recreated.created).toBe(true);
      expect(await col.get('d1')).toEqual(recreated.doc);
      expect(await col.delete('d1')).toBe(true);
    });

    it('stores values as JSON: nested data round-trips, Dates become ISO strings, undefined is dropped', async () => {
      const col = ctx.store.collection<Record<string, unknown>>(uniqueName('json'));
      const at = new Date('2025-01-02T03:04:05.678Z');
      const value = { nested: { list: [1, 'two', { three: true }], empty: {} }, text: 'ünï 🚀', big: 2 ** 40, neg: -1.5, at, gone: undefined };
      const expected = { nested: { list: [1, 'two', { three: true }], empty: {} }, text: 'ünï 🚀', big: 2 ** 40, neg: -1.5, at: at.toISOString() };
      const put = await col.put('v', value);
      // The written document is the stored copy: changing the caller's object afterwards does not change it.
      value.nested.list.push(4);
      expect(put.value).toEqual(expected);
      expect((await col.get('v'))!.value).toEqual(expected);
    });

    it('accepts ids with odd characters and returns them exactly', async () => {
      const col = runs();
      const ids = [
        'with space', 'ünïcödé', 'emoji-🚀', 'a/b/c', 'a.b', 'dots..double', '.leading', 'trailing.', '*', '>',
        'tenant:42#run?x=1&y', '_b64_looks-encoded', 'UPPER', '50%', `quote'"\\`, '-dash', 'x'.repeat(512), '日本'.repeat(85),
      ];
      for (const id of ids) await col.create(id, { status: id });
      for (const id of ids) expect((await col.get(id))?.value).toEqual({ status: id });
      const found = await col.find();
      expect(found.map((d) => d.id).sort()).toEqual([...ids].sort());
      for (const d of found) expect(d.value.status).toBe(d.id);
      expect(await col.delete('a.b')).toBe(true);
      expect(await col.get('a.b')).toBeNull();
      expect(await col.get('a/b/c')).not.toBeNull();
    });

    it('Bad input gets a specific error: invalid ids, values and revisions are DocumentInvalidError (STORE.INVALID)', async () => {
      const col = runs();
      const badIds: unknown[] = ['', 'nul\u0000byte', 'line\nbreak', 'x'.repeat(513), '\uD800lone', 42, undefined];
      for (const id of badIds) {
        await expect(col.get(id as string)).rejects.toMatchObject({ code: 'STORE.INVALID' });
        await expect(col.create(id as string, { status: 'x' })).rejects.toBeInstanceOf(DocumentInvalidError);
      }
      const cyclic: Record<string, unknown> = { status: 'x' };
      cyclic.self = cyclic;
      for (const value of [null, [1, 2], 'text', cyclic, { status: 'x', n: BigInt(1) }]) {
        await expect(col.put('ok', value as unknown as Run)).rejects.toBeInstanceOf(DocumentInvalidError);
      }
      for (const rev of [0, -1, 1.5, Number.NaN]) {
        await expect(col.replace('ok', { status: 'x' }, rev)).rejects.toBeInstanceOf(DocumentInvalidError);
      }
      expect(await col.get('ok')).toBeNull();
    });

    it('Bad input gets a specific error: bad collection names are refused synchronously with DocumentInvalidError', () => {
      const bad = ['', 'has space', 'dot.name', 'slash/name', '$sys', '1digit-first', '_underscore-first', 'x'.repeat(64), 'ünï'];
      for (const n of bad) {
        expect(() => ctx.store.collection(n)).toThrow(DocumentInvalidError);
        expect(() => ctx.store.collection(n)).toThrow(/invalid collection name/);
      }
      expect(() => ctx.store.collection('Agent_runs-2')).not.toThrow();
      expect(() => ctx.store.collection('a'.repeat(63))).not.toThrow();
    });

    it('keeps collections isolated from each other', async () => {
      const a = runs();
      const b = runs();
      await a.create('shared', { status: 'in-a' });
      await b.create('shared', { status: 'in-b' });
      await b.create('only-b', { status: 'b' });
      expect((await a.get('shared'))!.value.status).toBe('in-a');
      expect(await a.get('only-b')).toBeNull();
      expect(await a.delete('shared')).toBe(true);
      expect((await b.get('shared'))!.value.status).toBe('in-b');
      expect((await b.find()).map((d) => d.id)).toEqual(['only-b', 'shared']);
      expect(await a.find()).toEqual([]);
    });

    it('two handles on the same name see the same documents', async () => {
      const name = uniqueName('same');
      await ctx.store.collection<Run>(name).put('x', { status: 'one' });
      expect((await ctx.store.collection<Run>(name).get('x'))!.value).toEqual({ status: 'one' });
    });

    it('a closed store rejects further operations with DocumentStoreError, not as bad input', async () => {
      const other = await factory();
      const col = other.collection<Run>(uniqueName('closed'));
      await col.put('x', { status: 'before' });
      await other.close();
      await expect(col.get('x')).rejects.toBeInstanceOf(DocumentStoreError);
      await expect(col.get('x')).rejects.not.toBeInstanceOf(DocumentInvalidError);
      await expect(col.put('x', { status: 'after' })).rejects.toThrow(/closed/);
      // The suite's own store is unaffected.
      expect(await runs().get('x')).toBeNull();
    });

    describeFindContract(ctx);
  });
}
