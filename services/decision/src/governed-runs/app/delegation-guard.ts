import { DelegationChain, DelegationResult, DEFAULT_MAX_DELEGATION_DEPTH } from '@runledger/agent-runtime';
import { RunRepository } from '@runledger/runs';

/** Ancestors further up than this are not walked: the chain is refused at depth 5 long before. */
const MAX_WALK = 16;

/**
 * INV-DT-001/002 over the log: the delegation chain of a run is the agent names of its ancestor agent runs
 * (parent_run_id links), root first. Derived from recorded RunCreated events, so it survives restarts and
 * needs no state of its own.
 */
export class DelegationGuard {
  constructor(private readonly runs: RunRepository) {}

  /** The chain ending at `runId` (that run's agent included); runs that are not agent runs are skipped. */
  async chainOf(runId: string, maxDepth = DEFAULT_MAX_DELEGATION_DEPTH): Promise<DelegationChain> {
    const agents: string[] = [];
    let current: string | undefined = runId;
    for (let i = 0; current && i < MAX_WALK; i++) {
      const { state } = await this.runs.load(current);
      if (!state.run) break;
      if (state.run.run_kind === 'agent') agents.unshift(state.run.agent_name);
      current = state.run.parent_run_id;
    }
    return agents.length ? DelegationChain.from({ agents, maxDepth }) : DelegationChain.start('EXTERNAL_CALLER', maxDepth);
  }

  /** May the run `parentRunId` delegate to `agent`? An error result, never an exception (INV-DT-002). */
  async check(parentRunId: string, agent: string, maxDepth = DEFAULT_MAX_DELEGATION_DEPTH): Promise<DelegationResult> {
    return (await this.chainOf(parentRunId, maxDepth)).delegate(agent);
  }
}
