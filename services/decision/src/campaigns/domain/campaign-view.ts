import type { CampaignView } from '@runledger/contracts';
import type { CampaignState } from './campaign-types';

/** The reply body of every campaign request (campaign-view.schema.json). */
export function viewOf(state: CampaignState): CampaignView {
  return {
    campaign_id: state.campaign_id,
    name: state.name,
    status: state.status,
    cycles: state.cycles_started,
    current_task_id: state.current_task_id,
    current_lead_id: state.current_lead_id,
    tasks: state.tasks.map((t) => ({ id: t.id, description: t.description, status: t.status, preconditions: [...t.preconditions] })),
    leads: state.leads.map((l) => ({ ...l })),
    pending_items: Object.values(state.pending).map((p) => ({
      item_id: p.item_id, kind: p.kind, status: p.status, expires_at: p.expires_at, proposal: p.proposal,
      ...(p.executed ? { executed: { ...p.executed } } : {}),
    })),
    artifacts: state.artifacts.map((a) => ({ ...a })),
  };
}
