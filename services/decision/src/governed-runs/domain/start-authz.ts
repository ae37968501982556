import { getLane, getRole, type ArtifactRef, type PolicySet } from '@runledger/governance';
import type { AuthzDecidedData } from '@runledger/runs';
import { AGENT_LANES, isGovernedAgent } from './agents';

/** The action an agent run's start authorisation is about, as recorded in AuthzDecided. */
export const START_ACTION = 'agent.run.start';

export interface StartAuthzInput {
  agent_name: string;
  /** The agent has an enabled profile in the registry. */
  registered: boolean;
  case_id: string;
  input_artifacts: readonly ArtifactRef[];
}

/**
 * The authz_decision at run start (§1), against the pinned policy. First failure decides:
 * 1. the agent is one of the governed agents with an enabled profile (`AGENT.UNKNOWN`);
 * 2. the policy has a role for it (`ROLE.UNKNOWN`);
 * 3. every lane the agent works through is listed by its role and admits it (`LANE.CALLER_DENIED`);
 * 4. no input artifact belongs to another case (`CASE.CROSS_CASE_DENIED`, §"case isolation is default").
 * Actions are checked later, one by one, at the choke points, against the same pinned versions.
 */
export function decideAgentStart(policy: PolicySet, input: StartAuthzInput): AuthzDecidedData {
  const versions = { lanes: policy.versions.lanes, roles: policy.versions.roles };
  const deny = (code: string, reason: string): AuthzDecidedData => ({ decision: 'deny', action: START_ACTION, code, reason, policy_versions: versions });
  const name = input.agent_name;
  if (!isGovernedAgent(name) || !input.registered) return deny('AGENT.UNKNOWN', `${name} is not a registered governed agent.`);
  const role = getRole(policy, name);
  if (!role) return deny('ROLE.UNKNOWN', `${name} has no role in roles ${versions.roles}.`);
  for (const laneName of AGENT_LANES[name]) {
    const lane = getLane(policy, laneName);
    if (!lane || !role.lanes.includes(laneName) || !lane.allowed_callers.includes(name)) {
      return deny('LANE.CALLER_DENIED', `${name} may not use lane ${laneName} under lanes ${versions.lanes}.`);
    }
  }
  const foreign = input.input_artifacts.find((a) => a.case_id !== undefined && a.case_id !== input.case_id);
  if (foreign) return deny('CASE.CROSS_CASE_DENIED', `Input artifact ${foreign.artifact_id} belongs to another case.`);
  return { decision: 'allow', action: START_ACTION, policy_versions: versions };
}
