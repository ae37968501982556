import { LOG_SUBJECT_PREFIX } from './stream';

/** One subject per aggregate instance: the subject's last sequence is the aggregate's version. */
export interface AggregateRef {
  kind: string;
  id: string;
  subject: string;
}

const TOKEN = /^[A-Za-z0-9_-]{1,128}$/;

/** Whether `id` can name an aggregate: one subject token (an id that cannot has no aggregate in the log). */
export function isAggregateToken(id: string): boolean {
  return TOKEN.test(id);
}

/** Builds `rl.log.<kind>.<id>`; ids must be single subject tokens (no dots, spaces or wildcards). */
export function aggregateRef(kind: string, id: string): AggregateRef {
  if (!isAggregateToken(kind) || !isAggregateToken(id)) {
    throw new Error(`invalid aggregate reference ${JSON.stringify(kind)}/${JSON.stringify(id)}: use [A-Za-z0-9_-]{1,128}`);
  }
  return { kind, id, subject: `${LOG_SUBJECT_PREFIX}.${kind}.${id}` };
}

/** The subject that matches every instance of one aggregate kind (for consumers and replays). */
export function aggregateKindSubject(kind: string): string {
  return `${LOG_SUBJECT_PREFIX}.${kind}.*`;
}
