import { DelegationChain } from './delegation-chain';

function delegateAll(chain: DelegationChain, targets: string[]): DelegationChain {
  return targets.reduce((c, t) => {
    const r = c.delegate(t);
    if (!r.ok) throw new Error(r.message);
    return r.chain;
  }, chain);
}

describe('DelegationChain', () => {
  it('INV-DT-001: the default limit allows five delegations and refuses the sixth with an error result', () => {
    const chain = delegateAll(DelegationChain.start('root'), ['a1', 'a2', 'a3', 'a4', 'a5']);
    expect(chain.depth).toBe(5);
    expect(chain.canDelegate('a6')).toBe(false);
    const refused = chain.delegate('a6');
    expect(refused).toEqual({ ok: false, code: 'DELEGATION.MAX_DEPTH', message: expect.stringContaining('above the maximum of 5') });
  });

  it('INV-DT-001: a configured maxDepth is honoured, and survives a round trip through the log', () => {
    const chain = delegateAll(DelegationChain.start('root', 2), ['planner', 'coder']);
    expect(chain.canDelegate('tester')).toBe(false);
    const restored = DelegationChain.from(JSON.parse(JSON.stringify(chain)));
    expect(restored.delegate('tester')).toMatchObject({ ok: false, code: 'DELEGATION.MAX_DEPTH' });
    expect(DelegationChain.start('solo', 0).canDelegate('other')).toBe(false);
  });

  it('INV-DT-002: delegating to itself or to any ancestor is reported as circular, not thrown', () => {
    const chain = delegateAll(DelegationChain.start('root'), ['planner', 'coder']);
    expect(chain.isInChain('planner')).toBe(true);
    expect(chain.isInChain('tester')).toBe(false);
    expect(chain.delegate('coder')).toEqual({ ok: false, code: 'DELEGATION.CIRCULAR', message: expect.stringContaining('itself') });
    expect(chain.delegate('root')).toEqual({
      ok: false,
      code: 'DELEGATION.CIRCULAR',
      message: expect.stringContaining('root -> planner -> coder -> root'),
    });
    expect(chain.canDelegate('tester')).toBe(true);
  });

  it('INV-DT-002: a refused delegation leaves the chain unchanged', () => {
    const chain = delegateAll(DelegationChain.start('root'), ['planner']);
    chain.delegate('root');
    expect(chain.agents).toEqual(['root', 'planner']);
    expect(Object.isFrozen(chain.agents)).toBe(true);
  });
});
