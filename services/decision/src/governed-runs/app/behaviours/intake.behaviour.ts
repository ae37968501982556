import type { ArtifactRef } from '@runledger/governance';
import { LANES } from '../../domain/agents';
import type { IntakeAssessment } from '../../domain/intake';
import { AgentBehaviour, outputOf, StepRuntime, unknownStep } from './behaviour';
import { entityWrite, performWrites, readJson, requireInput, WriteRecord } from './inputs';

const LANE = LANES.intakeWrites;

/** INTAKE_AGENT (§4.2): triage of the client intake form; persists entities through db_write only. */
export const intakeBehaviour: AgentBehaviour = {
  async runStep(stepId: string, rt: StepRuntime): Promise<unknown> {
    switch (stepId) {
      case 'read': {
        const ref = requireInput(rt.spec, 'client_intake_form');
        return { form_ref: ref, form: await readJson(rt, LANE, ref) };
      }
      case 'assess':
        return rt.reasoner.assessIntake(outputOf<{ form: unknown }>(rt.outputs, 'read').form, rt.asOfDay);
      case 'publish': {
        const a = outputOf<IntakeAssessment>(rt.outputs, 'assess');
        const source = outputOf<{ form_ref: ArtifactRef }>(rt.outputs, 'read').form_ref.artifact_id;
        const summary = await rt.effects.putJson(LANE, 'intake_summary', 'intake_summary.json', { case_id: rt.spec.case_id, source_artifact_id: source, ...a.summary });
        const checklist = await rt.effects.putJson(LANE, 'intake_checklist', 'intake_checklist.json', { case_id: rt.spec.case_id, source_artifact_id: source, ...a.checklist });
        return { artifacts: [summary, checklist] };
      }
      case 'persist':
        return { writes: await performWrites(rt, LANE, outputOf<IntakeAssessment>(rt.outputs, 'assess').entities.map((e) => entityWrite(rt.spec, e))) };
      default:
        return unknownStep('INTAKE_AGENT', stepId);
    }
  },

  outcome(outputs) {
    const a = outputOf<IntakeAssessment>(outputs, 'assess');
    return {
      output_artifacts: outputOf<{ artifacts: ArtifactRef[] }>(outputs, 'publish').artifacts,
      result: { decision: a.summary.decision, flags: a.summary.flags, missing_fields: a.summary.missing_fields, writes: outputOf<{ writes: WriteRecord[] }>(outputs, 'persist').writes },
    };
  },
};
