import { parseAgentProfile, type AgentProfile } from '../profile/agent-profile';
import { injectAbilities, type Ability } from './inject-abilities';
import { preparePrompt } from './prepare-prompt';

function profile(): AgentProfile {
  const p = parseAgentProfile({
    id: 'backend',
    name: 'Backend',
    description: 'd',
    systemPrompt: 'You are the backend agent.',
    coreAbilities: ['conventions'],
    abilities: ['sql', 'http', 'queues'],
  });
  if (!p.ok) throw new Error(p.message);
  return p.value;
}

// 1 token per word keeps the arithmetic of the budgets readable.
const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
const catalogue: Ability[] = [
  { id: 'conventions', content: 'CORE: follow the house conventions', tags: ['style'] },
  { id: 'sql', content: 'SQL: use parameterised queries always', tags: ['sql', 'database'] },
  { id: 'http', content: 'HTTP: return problem details', keywords: ['api', 'http'] },
  { id: 'queues', content: 'QUEUES: ack after append', tags: ['nats', 'queue', 'database'] },
];

describe('ability injection', () => {
  it('INV-AGT-ABL-001: preparePrompt injects abilities into the system message before the task is sent', () => {
    const prepared = preparePrompt({ profile: profile(), task: 'Add an API endpoint', abilities: catalogue, tokenLimit: 100, estimateTokens: words });
    if (!prepared.ok) throw new Error(prepared.message);
    expect(prepared.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(prepared.messages[0]!.content).toBe(
      'CORE: follow the house conventions\n\nHTTP: return problem details\n\nYou are the backend agent.',
    );
    expect(prepared.messages[1]!.content).toBe('Add an API endpoint');
  });

  it('INV-AGT-ABL-001: a prepared prompt is frozen, so nothing can be injected after it is handed to a provider', () => {
    const prepared = preparePrompt({
      profile: profile(),
      task: 'Fix the sql query',
      abilities: catalogue,
      tokenLimit: 100,
      history: [{ role: 'user', content: 'hi' }],
    });
    if (!prepared.ok) throw new Error(prepared.message);
    expect(() => (prepared.messages as { role: string; content: string }[]).unshift({ role: 'system', content: 'late' })).toThrow(TypeError);
    expect(() => {
      (prepared.messages[0] as { content: string }).content += ' late';
    }).toThrow(TypeError);
    expect(prepared.messages).toHaveLength(3);
  });

  it('INV-AGT-ABL-002: core abilities come first and are included even when the task matches nothing', () => {
    const matched = injectAbilities({ profile: profile(), task: 'tune the database', abilities: catalogue, tokenLimit: 100, estimateTokens: words });
    expect(matched.ok && matched.included).toEqual(['conventions', 'sql', 'queues']);
    const unmatched = injectAbilities({ profile: profile(), task: 'say hello', abilities: catalogue, tokenLimit: 100, estimateTokens: words });
    expect(unmatched.ok && unmatched.included).toEqual(['conventions']);
    expect(unmatched.ok && unmatched.systemPrompt.startsWith('CORE: follow')).toBe(true);
  });

  it('INV-AGT-ABL-002: a missing core ability, or core abilities above the budget, is an error rather than a prompt without them', () => {
    const missing = injectAbilities({ profile: profile(), task: 't', abilities: catalogue.slice(1), tokenLimit: 100 });
    expect(missing).toMatchObject({ ok: false, code: 'ABILITY.CORE_MISSING' });
    const tooBig = injectAbilities({ profile: profile(), task: 't', abilities: catalogue, tokenLimit: 4, estimateTokens: words });
    expect(tooBig).toMatchObject({ ok: false, code: 'ABILITY.CORE_OVER_BUDGET' });
  });

  it('INV-AGT-ABL-003: injection stops before the token limit, keeps the most relevant abilities and warns about the rest', () => {
    // 'queues' matches two terms (nats, database), 'sql' one: queues ranks first.
    const task = 'move the database writes onto nats';
    const limit = 10; // core (5 words) + queues (4) = 9 fits; adding sql (5) would make 14
    const result = injectAbilities({ profile: profile(), task, abilities: catalogue, tokenLimit: limit, estimateTokens: words });
    if (!result.ok) throw new Error(result.message);
    expect(result.included).toEqual(['conventions', 'queues']);
    expect(result.omitted).toEqual(['sql']);
    expect(result.truncated).toBe(true);
    expect(result.tokensUsed).toBeLessThanOrEqual(limit);
    expect(words(result.systemPrompt.replace('You are the backend agent.', ''))).toBeLessThanOrEqual(limit);
    expect(result.warnings).toEqual(['ability budget of 10 tokens reached; omitted: sql']);

    const roomy = injectAbilities({ profile: profile(), task, abilities: catalogue, tokenLimit: 15, estimateTokens: words });
    expect(roomy.ok && [roomy.included, roomy.truncated]).toEqual([['conventions', 'queues', 'sql'], false]);
  });
});
