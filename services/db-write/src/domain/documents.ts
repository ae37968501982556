import type { StoredEvent } from '@runledger/event-log';

/** Tasks are identified by `task_id` (contract 000); other collections by `document_id`. */
export function idField(collection: string): string {
  return collection === 'tasks' ? 'task_id' : 'document_id';
}

type Doc = Record<string, unknown>;

/** The domain documents db-write keeps, as the log tells them: collection → id → document (null: deleted). */
export interface DomainDocuments {
  /** What each open db_write run was asked to do (from its RunCreated), until its outcome. */
  pending: Map<string, { collection: string; operation: string; document_id: string | null }>;
  collections: Map<string, Map<string, Doc | null>>;
}

export const initialDomainDocuments = (): DomainDocuments => ({ pending: new Map(), collections: new Map() });

/**
 * Domain documents rebuilt from db_write runs, in log order: a db_write run's RunCreated names the collection,
 * operation and id; its RunCompleted result carries the document exactly as it was stored (or, for a delete,
 * what was removed). Writes that changed nothing (not_found) change nothing here either. Mutates and returns
 * `state` (a replay folds hundreds of thousands of events; copying maps per event would be quadratic).
 */
export function evolveDomainDocuments(state: DomainDocuments, event: StoredEvent): DomainDocuments {
  const runId = event.metadata.stream_id;
  const d = (event.data ?? {}) as Doc;
  if (event.type === 'RunCreated' && d.run_kind === 'db_write') {
    const p = (d.parameters ?? {}) as Doc;
    state.pending.set(runId, { collection: String(p.collection), operation: String(p.operation), document_id: typeof p.document_id === 'string' ? p.document_id : null });
    return state;
  }
  const write = state.pending.get(runId);
  if (!write || !['RunCompleted', 'RunFailed', 'RunDenied', 'RunCancelled'].includes(event.type)) return state;
  state.pending.delete(runId);
  const result = (d.result ?? {}) as { status?: string; document?: Doc; previous?: Doc };
  if (event.type !== 'RunCompleted' || result.status !== 'ok') return state;
  const docs = state.collections.get(write.collection) ?? new Map<string, Doc | null>();
  state.collections.set(write.collection, docs);
  const field = idField(write.collection);
  if (write.operation === 'delete') {
    const id = write.document_id ?? (result.previous?.[field] as string | undefined);
    if (id) docs.set(id, null);
  } else if (result.document) {
    docs.set(String(result.document[field] ?? write.document_id), result.document);
  }
  return state;
}
