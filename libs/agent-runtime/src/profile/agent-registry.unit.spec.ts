import type { AgentProfileInput } from './agent-profile';
import { AgentRegistry } from './agent-registry';

const reviewer: AgentProfileInput = {
  id: 'code-reviewer',
  name: 'Code reviewer',
  description: 'Reviews pull requests',
  systemPrompt: 'You review code.',
  keywords: ['review'],
  workflow: [{ id: 'read', name: 'Read diff' }, { id: 'comment', name: 'Comment', dependsOn: ['read'] }],
};

describe('AgentRegistry', () => {
  it.each([
    ['an id with capitals', { ...reviewer, id: 'Code-Reviewer' }, '/id must match pattern'],
    ['an id with spaces', { ...reviewer, id: 'code reviewer' }, '/id must match pattern'],
    ['a missing system prompt', { ...reviewer, systemPrompt: undefined }, "must have required property 'systemPrompt'"],
    ['an unknown field', { ...reviewer, sytemPrompt: 'typo' }, "must NOT have additional properties: 'sytemPrompt'"],
    ['a negative delegation depth', { ...reviewer, maxDelegationDepth: -1 }, '/maxDelegationDepth must be >= 0'],
    ['a workflow cycle', { ...reviewer, workflow: [{ id: 'a', name: 'A', dependsOn: ['a'] }] }, 'circular dependency'],
    ['a dependency on an unknown step', { ...reviewer, workflow: [{ id: 'a', name: 'A', dependsOn: ['zz'] }] }, "unknown step 'zz'"],
  ])('INV-AGT-001: a profile with %s is rejected with a descriptive error and nothing is stored', (_, input, expected) => {
    const registry = new AgentRegistry();
    const result = registry.register(input);
    expect(result).toMatchObject({ ok: false, code: 'AGENT.INVALID_PROFILE' });
    expect(!result.ok && result.message).toContain(expected);
    expect(registry.list().map((p) => p.id)).toEqual(['standard']);
  });

  it('INV-AGT-001: a registered profile is a frozen copy, so later changes to the input cannot corrupt it', () => {
    const registry = new AgentRegistry();
    const input = structuredClone(reviewer);
    expect(registry.register(input).ok).toBe(true);
    input.keywords!.push('hacked');
    (input.workflow![0] as { name: string }).name = 'changed';
    const stored = registry.get('code-reviewer')!;
    expect(stored.keywords).toEqual(['review']);
    expect(stored.workflow[0]!.name).toBe('Read diff');
    expect(Object.isFrozen(stored.workflow[0])).toBe(true);
    expect(stored).toMatchObject({ enabled: true, coreAbilities: [], exampleTasks: [] });
  });

  it('INV-AGT-002: registering an id twice fails and keeps the first profile', () => {
    const registry = new AgentRegistry();
    registry.register(reviewer);
    const second = registry.register({ ...reviewer, name: 'Impostor' });
    expect(second).toMatchObject({ ok: false, code: 'AGENT.DUPLICATE_ID' });
    expect(!second.ok && second.message).toContain("'code-reviewer' is already registered");
    expect(registry.get('code-reviewer')!.name).toBe('Code reviewer');
  });

  it('INV-AGT-002: update replaces an existing profile but cannot create one', () => {
    const registry = new AgentRegistry();
    expect(registry.update(reviewer)).toMatchObject({ ok: false, code: 'AGENT.NOT_FOUND' });
    expect(registry.has('code-reviewer')).toBe(false);
    registry.register(reviewer);
    expect(registry.update({ ...reviewer, name: 'Senior reviewer' }).ok).toBe(true);
    expect(registry.get('code-reviewer')!.name).toBe('Senior reviewer');
  });

  it('INV-AGT-SEL-004: the standard agent always exists, enabled, and cannot be disabled', () => {
    const created = AgentRegistry.create([reviewer]);
    if (!created.ok) throw new Error(created.message);
    const registry = created.value;
    expect(registry.standard()).toMatchObject({ id: 'standard', enabled: true });
    const standard = registry.standard();
    const disable = registry.update({ ...standard, enabled: false, workflow: [] });
    expect(disable).toMatchObject({ ok: false, code: 'AGENT.STANDARD_REQUIRED' });
    expect(registry.register({ ...reviewer, id: 'standard' })).toMatchObject({ ok: false, code: 'AGENT.DUPLICATE_ID' });
    expect(registry.get('standard')!.enabled).toBe(true);
  });

  it('INV-AGT-SEL-004: a custom standard profile given at creation replaces the built-in one', () => {
    const created = AgentRegistry.create([{ id: 'standard', name: 'House default', description: 'd', systemPrompt: 'p' }]);
    expect(created.ok && created.value.standard().name).toBe('House default');
  });
});
