import type { GovernedAgentName } from '../../domain/agents';
import type { AgentBehaviour } from './behaviour';
import { exportBehaviour } from './export.behaviour';
import { governanceBehaviour } from './governance.behaviour';
import { intakeBehaviour } from './intake.behaviour';
import { interviewBehaviour } from './interview.behaviour';
import { mappingBehaviour } from './mapping.behaviour';
import { orchestratorBehaviour } from './orchestrator.behaviour';

export type { AgentBehaviour, AgentOutcome, StepRuntime } from './behaviour';

/** The behaviour behind each governed agent's profile workflow. */
export const AGENT_BEHAVIOURS: Readonly<Record<GovernedAgentName, AgentBehaviour>> = {
  ORCHESTRATOR: orchestratorBehaviour,
  INTAKE_AGENT: intakeBehaviour,
  INTERVIEW_AGENT: interviewBehaviour,
  MAPPING_AGENT: mappingBehaviour,
  GOVERNANCE_AGENT: governanceBehaviour,
  EXPORT_AGENT: exportBehaviour,
};
