/** Comparing rebuilt read models with the live ones: by id, documents compared as canonical JSON. */
import type { DocumentStore } from '@runledger/document-store';
import { canonicalJson } from '../../../libs/governance/src/hashing/canonical-json';
import { isListed, type IndexedRun } from '../../../libs/runs/src/domain/indexed-run';

type Doc = Record<string, unknown>;

export interface Difference {
  model: string;
  id: string;
  kind: 'missing in live' | 'only in live' | 'differs';
  detail?: string;
}

export interface ModelReport {
  model: string;
  rebuilt: number;
  live: number;
  differences: Difference[];
  /** Live rows a consumer changed after the replay's horizon: not compared (the log moved on). */
  skipped: number;
}

/** The first field whose value differs, for a readable line (the whole documents are in --json output). */
function firstDifference(a: Doc, b: Doc): string {
  for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (canonicalJson(a[key] ?? null) !== canonicalJson(b[key] ?? null)) return `${key}: rebuilt ${short(a[key])}, live ${short(b[key])}`;
  }
  return '';
}

const short = (v: unknown): string => {
  const s = JSON.stringify(v ?? null);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
};

/** Both sides as JSON round-trips (what any store returns), so Dates and undefined fields compare alike. */
export function compareDocs(model: string, rebuilt: Map<string, Doc>, live: Map<string, Doc>, skip: (doc: Doc) => boolean = () => false): ModelReport {
  const differences: Difference[] = [];
  let skipped = 0;
  for (const [id, doc] of rebuilt) {
    const other = live.get(id);
    if (!other) differences.push({ model, id, kind: 'missing in live' });
    else if (skip(other)) skipped++;
    else if (canonicalJson(doc) !== canonicalJson(other)) differences.push({ model, id, kind: 'differs', detail: firstDifference(doc, other) });
  }
  for (const [id, doc] of live) {
    if (rebuilt.has(id)) continue;
    if (skip(doc)) skipped++;
    else differences.push({ model, id, kind: 'only in live' });
  }
  return { model, rebuilt: rebuilt.size, live: live.size, differences, skipped };
}

export async function readAll(store: DocumentStore, name: string): Promise<Map<string, Doc>> {
  const docs = await store.collection<Doc>(name).find({});
  return new Map(docs.map((d) => [d.id, d.value]));
}

/** Writes the rebuilt documents into the fresh store (deleted ones are simply absent). */
export async function writeAll(store: DocumentStore, name: string, docs: Map<string, Doc | null>, onEach: () => void): Promise<void> {
  const col = store.collection<Doc>(name);
  const entries = [...docs].filter((e): e is [string, Doc] => e[1] !== null);
  for (let i = 0; i < entries.length; i += 32) {
    await Promise.all(entries.slice(i, i + 32).map(async ([id, doc]) => {
      await col.put(id, doc);
      onEach();
    }));
  }
}

/**
 * Runs-index rows compared with their ownership (issue 23): each side's row says whether rl.runs.list lists the run
 * (`listed`: not a forged run) and keeps its ownership track, so a live index that lists a forged run, or leaves out
 * a lawful one, is a difference. A live row indexed before the index kept tracks has none: for it the listing is compared.
 */
export function withListing(rebuilt: Map<string, Doc>, live: Map<string, Doc>): void {
  for (const docs of [rebuilt, live]) for (const doc of docs.values()) doc.listed = isListed(doc as unknown as IndexedRun);
  for (const [id, doc] of live) {
    const mine = rebuilt.get(id);
    if (doc.ownership === undefined && mine) delete mine.ownership;
  }
}
