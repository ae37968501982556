import { DEFAULT_MAX_DELEGATION_DEPTH } from '../profile/agent-profile';

export type DelegationErrorCode = 'DELEGATION.MAX_DEPTH' | 'DELEGATION.CIRCULAR';

export type DelegationResult =
  | { readonly ok: true; readonly chain: DelegationChain }
  | { readonly ok: false; readonly code: DelegationErrorCode; readonly message: string };

/** Serialisable form, for events and checkpoints. */
export interface DelegationChainData {
  readonly agents: readonly string[];
  readonly maxDepth: number;
}

/**
 * The path of agents from the run's root agent to the one currently working.
 * Immutable: `delegate` returns a new chain. Depth counts delegations, so the
 * root alone is depth 0 and at most `maxDepth` delegations are allowed (INV-DT-001).
 * An agent may not delegate to itself or an ancestor (INV-DT-002).
 */
export class DelegationChain {
  private constructor(
    readonly agents: readonly string[],
    readonly maxDepth: number,
  ) {
    Object.freeze(this.agents);
    Object.freeze(this);
  }

  static start(rootAgentId: string, maxDepth: number = DEFAULT_MAX_DELEGATION_DEPTH): DelegationChain {
    if (!Number.isInteger(maxDepth) || maxDepth < 0) throw new RangeError(`maxDepth must be an integer >= 0, got ${maxDepth}`);
    return new DelegationChain([rootAgentId], maxDepth);
  }

  /** Rebuilds a chain recorded with `toJSON` (e.g. from a run's events). */
  static from(data: DelegationChainData): DelegationChain {
    if (data.agents.length === 0) throw new RangeError('a delegation chain has at least its root agent');
    return new DelegationChain([...data.agents], data.maxDepth);
  }

  get depth(): number {
    return this.agents.length - 1;
  }

  get current(): string {
    return this.agents[this.agents.length - 1]!;
  }

  isInChain(agentId: string): boolean {
    return this.agents.includes(agentId);
  }

  canDelegate(targetAgentId: string): boolean {
    return this.check(targetAgentId) === null;
  }

  /** Returns the extended chain, or an error result (never throws) when the delegation is refused. */
  delegate(targetAgentId: string): DelegationResult {
    const refusal = this.check(targetAgentId);
    if (refusal !== null) return refusal;
    return { ok: true, chain: new DelegationChain([...this.agents, targetAgentId], this.maxDepth) };
  }

  toJSON(): DelegationChainData {
    return { agents: [...this.agents], maxDepth: this.maxDepth };
  }

  /** Circularity is reported first: it is a design error, depth is a budget. */
  private check(target: string): Extract<DelegationResult, { ok: false }> | null {
    if (this.isInChain(target)) {
      const path = [...this.agents, target].join(' -> ');
      const who = target === this.current ? 'itself' : 'an ancestor';
      return { ok: false, code: 'DELEGATION.CIRCULAR', message: `agent '${this.current}' cannot delegate to ${who} ('${target}'): ${path}` };
    }
    if (this.depth + 1 > this.maxDepth) {
      return {
        ok: false,
        code: 'DELEGATION.MAX_DEPTH',
        message: `delegation to '${target}' would reach depth ${this.depth + 1}, above the maximum of ${this.maxDepth} (${this.agents.join(' -> ')})`,
      };
    }
    return null;
  }
}
