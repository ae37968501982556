import type { ArtifactRef } from '@runledger/governance';
import { ARTIFACT_ID } from '@runledger/contracts';
import { deterministicUuid } from '@runledger/kernel';
import { LANES } from '../../domain/agents';
import { AgentStepError, invalidInput, policyDenied } from '../../domain/errors';
import { AgentBehaviour, outputOf, StepRuntime, unknownStep } from './behaviour';
import { inputsOfKind, readJson } from './inputs';

const LANE = LANES.export;
const MAX_EXPORT_ARTIFACTS = 500;

interface Bundled {
  child_run_id: string;
  bundle_sha256: string | null;
  artifacts: ArtifactRef[];
}

/**
 * The artifacts to bundle: the export_request's `artifact_ids` when it names some, else every other input.
 * The export service checks each belongs to the case; this step only decides what was asked for.
 */
async function select(rt: StepRuntime): Promise<{ artifact_ids: string[] }> {
  const request = inputsOfKind(rt.spec, 'export_request')[0];
  const asked = request ? ((await readJson(rt, LANE, request)) as { artifact_ids?: unknown } | null)?.artifact_ids : undefined;
  // Each named id is an artifact id (the form every artifact reference has): anything else is the request's problem,
  // said here, not an export refusal further on (probe finding: "../../x" failed the run INTERNAL, retryable).
  const bad = Array.isArray(asked) ? asked.findIndex((id) => typeof id !== 'string' || id.length > 128 || !ARTIFACT_ID.test(id)) : -1;
  if (bad >= 0) throw invalidInput(`The export_request's artifact_ids.${bad} is not an artifact id (a letter or digit, then letters, digits, . _ : or -; at most 128).`);
  const ids = Array.isArray(asked) && asked.length
    ? (asked as string[])
    : rt.spec.input_artifacts.filter((a) => a.kind !== 'export_request').map((a) => a.artifact_id);
  const unique = [...new Set(ids)];
  if (unique.length === 0) throw invalidInput('EXPORT_AGENT needs at least one artifact to export.');
  if (unique.length > MAX_EXPORT_ARTIFACTS) throw invalidInput(`At most ${MAX_EXPORT_ARTIFACTS} artifacts can be exported at once.`);
  return { artifact_ids: unique };
}

/** EXPORT_AGENT (§4.6): has the export service bundle the case (manifest with hashes, receipt, export audit events). */
export const exportBehaviour: AgentBehaviour = {
  async runStep(stepId: string, rt: StepRuntime): Promise<unknown> {
    switch (stepId) {
      case 'select':
        return select(rt);
      case 'bundle': {
        const { artifact_ids } = outputOf<{ artifact_ids: string[] }>(rt.outputs, 'select');
        const result = await rt.effects.exportBundle({ export_id: deterministicUuid('export', rt.spec.run_id), case_id: rt.spec.case_id, artifact_ids }, LANE);
        if (result.status === 'denied') throw policyDenied(result.error?.message ?? 'The export was denied by policy.');
        if (result.status !== 'exported' || !result.bundle_ref || !result.manifest_ref) {
          throw new AgentStepError('EXPORT.FAILED', result.error?.message ?? 'The export failed.', result.error?.retryable ?? true);
        }
        const artifacts = [result.bundle_ref, result.manifest_ref, ...(result.receipt_ref ? [result.receipt_ref] : [])];
        return { child_run_id: result.child_run_id, bundle_sha256: result.bundle_sha256 ?? null, artifacts } satisfies Bundled;
      }
      default:
        return unknownStep('EXPORT_AGENT', stepId);
    }
  },

  outcome(outputs) {
    const b = outputOf<Bundled>(outputs, 'bundle');
    return {
      output_artifacts: b.artifacts,
      result: { export_run_id: b.child_run_id, bundle_sha256: b.bundle_sha256, artifact_count: outputOf<{ artifact_ids: string[] }>(outputs, 'select').artifact_ids.length },
    };
  },
};
