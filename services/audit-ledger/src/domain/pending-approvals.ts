import type { StoredEvent } from '@runledger/event-log';

export interface PendingApproval {
  campaign_id: string;
  item_id: string;
  kind: string;
  requested_at: string;
  expires_at: string;
}

/** Campaign items waiting for a person (ApprovalRequested, not yet decided or expired), folded from rl.log.campaign.*. Pure. */
export function evolvePendingApprovals(pending: Map<string, PendingApproval>, event: StoredEvent): Map<string, PendingApproval> {
  const d = (event.data ?? {}) as Record<string, unknown>;
  const key = `${event.metadata.stream_id}:${String(d.item_id)}`;
  if (event.type === 'ApprovalRequested') {
    pending.set(key, { campaign_id: event.metadata.stream_id, item_id: String(d.item_id), kind: String(d.kind ?? ''), requested_at: event.metadata.recorded_at, expires_at: String(d.expires_at ?? '') });
  } else if (event.type === 'ApprovalDecided' || event.type === 'ApprovalExpired') pending.delete(key);
  return pending;
}
