import type { StateSnapshotSource } from '@runledger/agent-runtime';
import type { CampaignState } from './campaign-types';

/**
 * What the controller knows, as the source of one cycle's StateSnapshot (FR-050). Only fields the snapshot
 * schema allows are copied; the bounds (10 pending tasks, 5 audit entries) are applied by buildStateSnapshot.
 * Pending tasks are in creation order; a task whose preconditions are not yet done still counts as pending.
 */
export function snapshotSourceOf(state: CampaignState): StateSnapshotSource {
  const current = state.tasks.find((t) => t.id === state.current_task_id) ?? null;
  const lead = state.leads.find((l) => l.id === state.current_lead_id) ?? null;
  const count = (s: string) => state.leads.filter((l) => l.status === s).length;
  return {
    campaign: { id: state.campaign_id, name: state.name, status: state.status },
    current_task: current && { id: current.id, description: current.description, status: current.status, preconditions: [...current.preconditions] },
    pending_tasks: state.tasks.filter((t) => t.status === 'pending' && t.id !== current?.id).map((t) => ({ id: t.id, description: t.description })),
    leads_summary: {
      total: state.leads.length, pending: count('pending'), contacted: count('contacted'), responded: count('responded'),
      current_lead: lead && {
        id: lead.id, full_name: lead.full_name, profile_url: lead.profile_url,
        ...(lead.job_title !== undefined ? { job_title: lead.job_title } : {}),
        ...(lead.company !== undefined ? { company: lead.company } : {}),
        ...(lead.weight_score !== undefined ? { weight_score: lead.weight_score } : {}),
      },
    },
    audit_log: state.audit.map((a) => ({ action_type: a.action_type, timestamp: a.timestamp, success: a.success, ...(a.payload ? { payload: a.payload } : {}) })),
    available_artifacts: state.artifacts.map((a) => ({ artifact_type: a.artifact_type, artifact_key: a.artifact_key })),
  };
}
