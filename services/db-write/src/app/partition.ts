import type { LaneIsolation } from '@runledger/governance';

/** The field that partitions a document by its lane's isolation; reads and writes never cross it. */
export interface Partition {
  field: 'owner_id' | 'case_id' | null;
  value: string | null;
}

export function partitionFor(isolation: LaneIsolation, scope: { user_id?: string; case_id?: string }): Partition {
  if (isolation === 'user') return { field: 'owner_id', value: scope.user_id ?? null };
  if (isolation === 'case') return { field: 'case_id', value: scope.case_id ?? null };
  return { field: null, value: null };
}

/** A document outside the caller's partition is reported as absent: its existence is not disclosed. */
export function inPartition(doc: Record<string, unknown> | undefined | null, p: Partition): boolean {
  if (!doc) return false;
  return p.field === null || doc[p.field] === p.value;
}

export function stamp(doc: Record<string, unknown>, p: Partition): Record<string, unknown> {
  return p.field === null ? { ...doc } : { ...doc, [p.field]: p.value };
}
