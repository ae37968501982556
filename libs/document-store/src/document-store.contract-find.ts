import { DocumentInvalidError, type DocumentCollection, type DocumentStore } from './types';

/** Shared state between the contract files. @internal */
export interface ContractContext {
  store: DocumentStore;
  uniqueName(label: string): string;
}

interface Agent {
  team: string;
  active: boolean;
  score?: number | string | null;
  tags?: string[];
  note?: string | null;
}

/** find() behaviour: filter, ordering, limit. Part of describeDocumentStoreContract. @internal */
export function describeFindContract(ctx: ContractContext): void {
  describe('find', () => {
    let agents: DocumentCollection<Agent>;
    const ids = (docs: { id: string }[]) => docs.map((d) => d.id);

    beforeAll(async () => {
      agents = ctx.store.collection<Agent>(ctx.uniqueName('agents'));
      // Written out of id order so default ordering cannot come from insertion order.
      await agents.put('delta', { team: 'red', active: true, score: 5, tags: ['x'] });
      await agents.put('Bravo', { team: 'blue', active: false, score: 9, note: null });
      await agents.put('alpha', { team: 'red', active: true, score: 9 });
      await agents.put('charlie', { team: 'blue', active: true, score: 1, note: 'hi' });
      await agents.put('echo', { team: 'red', active: false, tags: ['red'] });
      await agents.put('foxtrot', { team: 'green', active: true, score: 'high' });
      await agents.put('gone', { team: 'red', active: true, score: 100 });
      expect(await agents.delete('gone')).toBe(true);
    });

    it('returns every live document ordered by id as UTF-8 bytes (uppercase first)', async () => {
      expect(ids(await agents.find())).toEqual(['Bravo', 'alpha', 'charlie', 'delta', 'echo', 'foxtrot']);
      expect(ids(await agents.find({}))).toEqual(['Bravo', 'alpha', 'charlie', 'delta', 'echo', 'foxtrot']);
    });

    it('filters by equality on one or several top-level fields', async () => {
      expect(ids(await agents.find({ team: 'red' }))).toEqual(['alpha', 'delta', 'echo']);
      expect(ids(await agents.find({ team: 'red', active: true }))).toEqual(['alpha', 'delta']);
      expect(ids(await agents.find({ active: false }))).toEqual(['Bravo', 'echo']);
      expect(ids(await agents.find({ score: 9 }))).toEqual(['Bravo', 'alpha']);
      expect(ids(await agents.find({ score: '9' }))).toEqual([]);
      expect(ids(await agents.find({ team: 'purple' }))).toEqual([]);
    });

    it('null matches null or missing fields; scalars never match inside arrays', async () => {
      expect(ids(await agents.find({ note: null }))).toEqual(['Bravo', 'alpha', 'delta', 'echo', 'foxtrot']);
      expect(ids(await agents.find({ tags: 'red' }))).toEqual([]);
      expect(ids(await agents.find({ team: 'red', note: undefined }))).toEqual(['alpha', 'delta', 'echo']);
    });

    it('sorts by a field in either direction, ties broken by id ascending', async () => {
      const red = await agents.find({ team: 'red' }, { sort: { field: 'score', direction: -1 } });
      expect(ids(red)).toEqual(['alpha', 'delta', 'echo']);
      const asc = await agents.find({ active: true }, { sort: { field: 'score', direction: 1 } });
      // Numbers before strings, like MongoDB.
      expect(ids(asc)).toEqual(['charlie', 'delta', 'alpha', 'foxtrot']);
      const desc = await agents.find({}, { sort: { field: 'score', direction: -1 } });
      // Missing scores (echo) sort lowest; equal scores keep id order (Bravo before alpha).
      expect(ids(desc)).toEqual(['foxtrot', 'Bravo', 'alpha', 'delta', 'charlie', 'echo']);
      const byTeam = await agents.find({}, { sort: { field: 'team', direction: 1 } });
      expect(ids(byTeam)).toEqual(['Bravo', 'charlie', 'foxtrot', 'alpha', 'delta', 'echo']);
    });

    it('applies limit after filter and sort', async () => {
      expect(ids(await agents.find({}, { limit: 2 }))).toEqual(['Bravo', 'alpha']);
      expect(ids(await agents.find({ team: 'red' }, { sort: { field: 'score', direction: -1 }, limit: 1 }))).toEqual(['alpha']);
      expect(await agents.find({}, { limit: 0 })).toEqual([]);
      expect(ids(await agents.find({}, { limit: 100 }))).toHaveLength(6);
    });

    it('returns full documents with their current revision', async () => {
      const [charlie] = await agents.find({ team: 'blue', active: true });
      expect(charlie).toEqual(await agents.get('charlie'));
      const updated = await agents.replace('charlie', { ...charlie.value, score: 2 }, charlie.revision);
      expect((await agents.find({ team: 'blue', active: true }))[0]).toEqual(updated);
    });

    it('returns [] for a collection that was never written', async () => {
      expect(await ctx.store.collection(ctx.uniqueName('empty')).find({ any: 1 })).toEqual([]);
    });

    it('Bad input gets a specific error: unsupported filters and options are DocumentInvalidError (STORE.INVALID)', async () => {
      const bad: Array<() => Promise<unknown>> = [
        () => agents.find({ team: { $ne: 'red' } }),
        () => agents.find({ tags: ['x'] }),
        () => agents.find({ 'nested.field': 1 } as never),
        () => agents.find({ $where: 'true' } as never),
        () => agents.find({ score: Number.NaN }),
        () => agents.find({}, { limit: -1 }),
        () => agents.find({}, { limit: 1.5 }),
        () => agents.find({}, { sort: { field: 'a.b' as never, direction: 1 } }),
        () => agents.find({}, { sort: { field: 'team', direction: 0 as never } }),
      ];
      for (const call of bad) await expect(call()).rejects.toBeInstanceOf(DocumentInvalidError);
    });
  });
}
