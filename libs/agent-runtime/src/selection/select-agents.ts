import type { AgentProfile } from '../profile/agent-profile';
import type { AgentRegistry } from '../profile/agent-registry';
import { STANDARD_AGENT_ID } from '../profile/standard-agent';
import { containsPhrase, normalizeText } from '../shared/text';

/** Scoring weights. Example and negative weights are fixed by the contract (INV-AGT-SEL-005/006). */
export const SELECTION_WEIGHTS = {
  keyword: 0.15,
  keywordCap: 0.45,
  exampleSubstring: 0.4,
  exampleExact: 0.6,
  notForTask: -0.5,
  fallback: 0.5,
} as const;

export interface SelectionContext {
  /** Agents that must not be proposed, e.g. those already in the delegation chain. */
  readonly excludeAgentIds?: readonly string[];
  /** Keep only the best N results (the fallback still guarantees one). */
  readonly limit?: number;
}

export interface AgentScore {
  readonly agentId: string;
  /** Always within [0, 1] (INV-AGT-SEL-002). */
  readonly confidence: number;
  /** Sum of signals before clamping; differs from `confidence` when `clamped`. */
  readonly rawScore: number;
  /** Lets the caller log out-of-range scores (the domain has no logger). */
  readonly clamped: boolean;
  readonly reasons: readonly string[];
}

export interface AgentSelection extends AgentScore {
  readonly fallback: boolean;
}

export function clampConfidence(score: number): number {
  return Math.max(0, Math.min(1, score));
}

/**
 * Scores one agent against a task. Keywords add per whole-word hit (capped);
 * the best exampleTasks match adds +0.6 (normalised equality) or +0.4 (either
 * contains the other); any notForTasks match subtracts 0.5 once.
 */
export function scoreAgent(profile: AgentProfile, task: string): AgentScore {
  const t = normalizeText(task);
  const reasons: string[] = [];
  let raw = 0;

  const hits = profile.keywords.filter((k) => containsPhrase(t, normalizeText(k)));
  if (hits.length > 0) {
    raw += Math.min(SELECTION_WEIGHTS.keywordCap, hits.length * SELECTION_WEIGHTS.keyword);
    reasons.push(`keywords: ${hits.join(', ')}`);
  }

  let exampleBoost = 0;
  let exampleReason = '';
  for (const example of profile.exampleTasks) {
    const e = normalizeText(example);
    if (e.length === 0 || t.length === 0) continue;
    if (e === t && exampleBoost < SELECTION_WEIGHTS.exampleExact) {
      exampleBoost = SELECTION_WEIGHTS.exampleExact;
      exampleReason = `example task (exact): ${example}`;
    } else if ((t.includes(e) || e.includes(t)) && exampleBoost < SELECTION_WEIGHTS.exampleSubstring) {
      exampleBoost = SELECTION_WEIGHTS.exampleSubstring;
      exampleReason = `example task (partial): ${example}`;
    }
  }
  if (exampleBoost > 0) {
    raw += exampleBoost;
    reasons.push(exampleReason);
  }

  const excluded = profile.notForTasks.find((n) => {
    const e = normalizeText(n);
    return e.length > 0 && t.length > 0 && (t.includes(e) || e.includes(t));
  });
  if (excluded !== undefined) {
    raw += SELECTION_WEIGHTS.notForTask;
    reasons.push(`not for: ${excluded}`);
  }

  // Round away binary noise (0.15 * 3 = 0.44999...) so equal signals tie exactly.
  const rawScore = Math.round(raw * 1e9) / 1e9;
  const confidence = clampConfidence(rawScore);
  return { agentId: profile.id, confidence, rawScore, clamped: confidence !== rawScore, reasons };
}

const byConfidenceThenId = (a: AgentScore, b: AgentScore): number =>
  b.confidence - a.confidence || (a.agentId < b.agentId ? -1 : a.agentId > b.agentId ? 1 : 0);

/**
 * Ranks enabled agents for a task. Deterministic (INV-AGT-SEL-001): no randomness,
 * sorted by confidence descending then agentId (INV-AGT-SEL-003). Agents whose
 * confidence is 0 are left out; when nothing is left the `standard` agent is
 * returned with confidence 0.5 (INV-AGT-SEL-004).
 */
export function selectAgents(registry: AgentRegistry, task: string, context: SelectionContext = {}): AgentSelection[] {
  const excluded = new Set(context.excludeAgentIds ?? []);
  const ranked = registry
    .list()
    .filter((p) => p.enabled && !excluded.has(p.id))
    .map((p) => scoreAgent(p, task))
    .filter((s) => s.confidence > 0)
    .sort(byConfidenceThenId)
    .map((s): AgentSelection => ({ ...s, fallback: false }));

  const limited = context.limit === undefined ? ranked : ranked.slice(0, Math.max(1, context.limit));
  if (limited.length > 0) return limited;
  return [
    {
      agentId: STANDARD_AGENT_ID,
      confidence: SELECTION_WEIGHTS.fallback,
      rawScore: SELECTION_WEIGHTS.fallback,
      clamped: false,
      reasons: ['fallback: no agent matched the task'],
      fallback: true,
    },
  ];
}
