import type { AgentProfileInput } from '../profile/agent-profile';
import { AgentRegistry } from '../profile/agent-registry';
import { scoreAgent, selectAgents } from './select-agents';

const base = { description: 'd', systemPrompt: 'p' };
const agents: AgentProfileInput[] = [
  { ...base, id: 'security', name: 'Security', keywords: ['security', 'vulnerability', 'cve'], exampleTasks: ['Check the CVE list for a security vulnerability'] },
  { ...base, id: 'writer', name: 'Writer', keywords: ['docs', 'readme'], exampleTasks: ['Write the README'], notForTasks: ['security audit'] },
  { ...base, id: 'backend', name: 'Backend', keywords: ['api', 'database', 'security'] },
  { ...base, id: 'aaa-backend', name: 'Backend twin', keywords: ['api', 'database', 'security'] },
  { ...base, id: 'sleepy', name: 'Disabled', keywords: ['api'], enabled: false },
];

function registryOf(profiles: AgentProfileInput[] = agents): AgentRegistry {
  const created = AgentRegistry.create(profiles);
  if (!created.ok) throw new Error(created.message);
  return created.value;
}

const ids = (r: { agentId: string }[]) => r.map((x) => x.agentId);

describe('selectAgents', () => {
  it('INV-AGT-SEL-001: the same task and context always give the same ranking, whatever the registration order', () => {
    const task = 'Fix the API security bug in the database layer';
    const a = selectAgents(registryOf(), task);
    const b = selectAgents(registryOf([...agents].reverse()), task);
    expect(b).toEqual(a);
    expect(selectAgents(registryOf(), task)).toEqual(a);
  });

  it('INV-AGT-SEL-002: confidence is clamped to [0, 1] and the raw score shows when clamping happened', () => {
    const profile = registryOf().get('security')!;
    const high = scoreAgent(profile, 'Check the CVE list for a security vulnerability');
    expect(high.rawScore).toBeGreaterThan(1);
    expect(high).toMatchObject({ confidence: 1, clamped: true });
    const writer = registryOf().get('writer')!;
    const low = scoreAgent(writer, 'Run a security audit');
    expect(low).toMatchObject({ rawScore: -0.5, confidence: 0, clamped: true });
    for (const r of selectAgents(registryOf(), 'docs for the api security readme')) {
      expect(r.confidence).toBeGreaterThanOrEqual(0);
      expect(r.confidence).toBeLessThanOrEqual(1);
    }
  });

  it('INV-AGT-SEL-003: results are sorted by confidence descending, equal confidence by agent id', () => {
    // Alphabetical order would put the backends first: only the confidence sort puts security on top.
    const result = selectAgents(registryOf(), 'Check the api for a security vulnerability or cve');
    expect(ids(result)).toEqual(['security', 'aaa-backend', 'backend']);
    expect(result.map((r) => r.confidence)).toEqual([0.45, 0.3, 0.3]);
    expect(ids(result)).not.toContain('sleepy');
  });

  it('INV-AGT-SEL-004: when nothing matches, the standard agent is returned with confidence 0.5', () => {
    const result = selectAgents(registryOf(), 'Plan a birthday party');
    expect(result).toEqual([expect.objectContaining({ agentId: 'standard', confidence: 0.5, fallback: true })]);
    const excluded = selectAgents(registryOf(), 'write docs', { excludeAgentIds: ['writer'] });
    expect(ids(excluded)).toEqual(['standard']);
  });

  it('INV-AGT-SEL-005: an example task boosts confidence by 0.4 when contained and 0.6 when it matches exactly', () => {
    const writer = registryOf().get('writer')!;
    expect(scoreAgent(writer, 'Please write the README today').confidence).toBeCloseTo(0.15 + 0.4);
    expect(scoreAgent(writer, '  write THE readme! ').confidence).toBeCloseTo(0.15 + 0.6);
    expect(scoreAgent(writer, 'rewrite the changelog').confidence).toBe(0);
    expect(ids(selectAgents(registryOf(), 'Write the README'))[0]).toBe('writer');
  });

  it('INV-AGT-SEL-006: a notForTasks match subtracts 0.5, to 0 at most, and a strongly matched agent stays selectable', () => {
    const writer = registryOf().get('writer')!;
    const plain = scoreAgent(writer, 'Write the README');
    const negated = scoreAgent(writer, 'Write the README for the security audit');
    expect(plain.confidence - negated.confidence).toBeCloseTo(0.6 - 0.4 + 0.5);
    expect(negated.confidence).toBeCloseTo(0.15 + 0.4 - 0.5);
    expect(ids(selectAgents(registryOf(), 'Write the README for the security audit'))).toContain('writer');
    expect(ids(selectAgents(registryOf(), 'docs for the security audit'))).not.toContain('writer');
  });
});
