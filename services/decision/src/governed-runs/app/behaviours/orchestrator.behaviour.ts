import type { ArtifactRef } from '@runledger/governance';
import { ORCHESTRATION_LANE } from '../../domain/agents';
import { childInputs, childParameters, DELEGATIONS, DelegationOutput, isDelegationWanted, orchestratorParameters, workflowSummary } from '../../domain/orchestration';
import { AgentBehaviour, outputOf, StepRuntime, unknownStep } from './behaviour';

const delegations = (outputs: Readonly<Record<string, unknown>>): DelegationOutput[] =>
  Object.keys(DELEGATIONS).flatMap((stepId) => (outputs[stepId] ? [outputOf<DelegationOutput>(outputs, stepId)] : []));

/**
 * ORCHESTRATOR (§4.1): runs INTAKE → INTERVIEW → MAPPING (→ EXPORT when parameters.export is true) as correlated
 * child agent runs, then publishes a workflow summary. It calls no tool and writes no domain data itself.
 */
export const orchestratorBehaviour: AgentBehaviour = {
  async runStep(stepId: string, rt: StepRuntime): Promise<unknown> {
    const params = orchestratorParameters(rt.spec.parameters);
    if (Object.hasOwn(DELEGATIONS, stepId)) {
      const agent = DELEGATIONS[stepId];
      if (!isDelegationWanted(stepId, params)) {
        return { step_id: stepId, agent_name: agent, child_run_id: null, outcome: 'skipped', output_artifacts: [] } satisfies DelegationOutput;
      }
      return rt.delegate(stepId, agent, childInputs(stepId, rt.spec.input_artifacts, rt.outputs), childParameters(stepId, params));
    }
    if (stepId === 'summary') {
      const summary = workflowSummary(rt.spec.case_id, delegations(rt.outputs));
      return { artifact: await rt.effects.putJson(ORCHESTRATION_LANE, 'workflow_summary', 'workflow_summary.json', summary), child_run_ids: summary.child_run_ids };
    }
    return unknownStep('ORCHESTRATOR', stepId);
  },

  outcome(outputs) {
    const summary = outputOf<{ artifact: ArtifactRef; child_run_ids: string[] }>(outputs, 'summary');
    return {
      output_artifacts: [summary.artifact],
      result: { children: delegations(outputs).map((d) => ({ step_id: d.step_id, agent_name: d.agent_name, child_run_id: d.child_run_id, outcome: d.outcome })) },
    };
  },
};
