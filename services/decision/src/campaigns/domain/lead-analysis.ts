import type { Lead, LeadStatus } from './campaign-types';

/**
 * analyze_leads as the controller carries it out (the agent proposes, the controller computes): leads ranked by
 * weight score (highest first, then id, so equal scores rank the same way every time); `score_update` first
 * applies the scores the proposal names (`parameters.scores`: lead id → 0..100), ignoring unknown leads and
 * out-of-range values. The current lead becomes the best-ranked lead not yet contacted.
 */
export function analyzeLeads(
  leads: readonly (Lead & { status: LeadStatus })[],
  analysisType: string,
  parameters: Record<string, unknown>,
): { ranking: string[]; current_lead_id: string | null; scores: Record<string, number> } {
  const scores: Record<string, number> = {};
  const given = analysisType === 'score_update' && isRecord(parameters['scores']) ? parameters['scores'] : {};
  for (const lead of leads) {
    const s = given[lead.id];
    if (typeof s === 'number' && Number.isFinite(s) && s >= 0 && s <= 100) scores[lead.id] = s;
  }
  const scoreOf = (l: Lead) => scores[l.id] ?? l.weight_score ?? 0;
  const ranked = [...leads].sort((a, b) => scoreOf(b) - scoreOf(a) || a.id.localeCompare(b.id));
  return { ranking: ranked.map((l) => l.id), current_lead_id: ranked.find((l) => l.status === 'pending')?.id ?? null, scores };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
