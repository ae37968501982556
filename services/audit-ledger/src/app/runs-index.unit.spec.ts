import type { DocumentStore } from '@runledger/document-store';
import type { CachedDataKeys } from '@runledger/messaging';
import { initialRunSummary, type RunSummary } from '@runledger/runs';
import { RunsIndexService } from './runs-index.service';

/** Issue 23 review: rl.runs.list opens (decrypts) the sealed error messages of the rows it answers, not of every match. */
describe('Issue 23 runs index: sealed error messages opened per page', () => {
  const id = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  const rows: RunSummary[] = Array.from({ length: 30 }, (_, i) => ({
    ...initialRunSummary(id(i)), agent_name: 'A', run_kind: 'agent', root_run_id: id(i), parent_run_id: null,
    created_at: new Date(Date.UTC(2026, 0, 1) + i * 1_000).toISOString(), status: 'failed', failed: true, error_code: 'TOOL.FAILED',
    error_message: { sealed: 'aes-256-gcm/v1', owner: `user-${i}`, iv: 'x', tag: 'x', text: true, ciphertext: 'x' } as unknown as string,
  }));
  const store = { collection: () => ({ find: async () => rows.map((value) => ({ id: value.run_id, value })) }) } as unknown as DocumentStore;
  let opened: string[] = [];
  // Every key erased: an opened message reads "[erased]"; what matters is whose keys were looked up.
  const keys = { stateOf: async (owner: string) => (opened.push(owner), 'erased') } as unknown as CachedDataKeys;
  const index = new RunsIndexService(store, undefined, keys);
  beforeEach(() => (opened = []));

  it('Issue 23 a list without text opens only its page\'s rows', async () => {
    const page = await index.list({ limit: 5 });
    expect(page.matched).toBe(30);
    expect(page.runs.map((r) => r.error_message)).toEqual(Array(5).fill('[erased]'));
    expect(opened.sort()).toEqual(page.runs.map((r) => `user-${Number(r.run_id.slice(-12))}`).sort());
  });

  it('Issue 23 a text search opens the messages it searches', async () => {
    const page = await index.list({ text: 'erased', limit: 5 });
    expect(page.matched).toBe(30);
    expect(opened).toHaveLength(30);
  });
});
