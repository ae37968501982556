import type { ArtifactRef } from '@runledger/governance';
import { LANES } from '../../domain/agents';
import { invalidInput } from '../../domain/errors';
import { isInterviewerTurn } from '../../domain/interview';
import { DEFAULT_COA_VERSION, mappingSourcesOf, MappingResult, MappingSource, taxonomyOf } from '../../domain/mapping';
import { textOf } from '../../domain/text';
import { AgentBehaviour, outputOf, StepRuntime, unknownStep } from './behaviour';
import { inputsOfKind, performWrites, runDocumentId, WriteRecord } from './inputs';

const LANE = LANES.mappingWrites;
const SOURCE_KINDS = ['transcript', 'interview_notes', 'source_document'];

interface ReadOutput {
  coa_version: string;
  sources: MappingSource[];
  source_artifact_ids: string[];
}

/** The pinned COA version: parameters.coa_version, else the request's taxonomy_versions.coa, else the default. */
function coaVersionOf(rt: StepRuntime): string {
  const version = textOf(rt.spec.parameters.coa_version) || rt.spec.taxonomy_versions?.coa || DEFAULT_COA_VERSION;
  taxonomyOf(version); // unknown version: INVALID_INPUT before any work
  return version;
}

/** MAPPING_AGENT (§4.4): facts, evidence map and COA map; persisted through db_write in WRITE_MAPPING_OUTPUTS. */
export const mappingBehaviour: AgentBehaviour = {
  async runStep(stepId: string, rt: StepRuntime): Promise<unknown> {
    switch (stepId) {
      case 'read': {
        const coa_version = coaVersionOf(rt);
        const refs = inputsOfKind(rt.spec, ...SOURCE_KINDS);
        if (refs.length === 0) throw invalidInput(`MAPPING_AGENT needs at least one input artifact of kind ${SOURCE_KINDS.join(', ')}.`);
        const sources: MappingSource[] = [];
        for (const ref of refs) {
          const { text } = await rt.effects.read(LANE, ref);
          sources.push(...mappingSourcesOf({ artifact_id: ref.artifact_id, kind: ref.kind, media_type: ref.media_type, text }, isInterviewerTurn));
        }
        return { coa_version, sources, source_artifact_ids: refs.map((r) => r.artifact_id) } satisfies ReadOutput;
      }
      case 'map': {
        const read = outputOf<ReadOutput>(rt.outputs, 'read');
        return rt.reasoner.mapCausesOfAction(read.sources, read.coa_version);
      }
      case 'publish': {
        const m = outputOf<MappingResult>(rt.outputs, 'map');
        const head = { case_id: rt.spec.case_id, coa_version: m.coa_version, source_artifact_ids: outputOf<ReadOutput>(rt.outputs, 'read').source_artifact_ids };
        return {
          artifacts: [
            await rt.effects.putJson(LANE, 'facts', 'facts.json', { ...head, facts: m.facts }),
            await rt.effects.putJson(LANE, 'evidence_map', 'evidence_map.json', { ...head, evidence_map: m.evidence_map }),
            await rt.effects.putJson(LANE, 'coa_map', 'coa_map.json', { ...head, coa_map: m.coa_map }),
            await rt.effects.putJson(LANE, 'mapping_summary', 'mapping_summary.json', { ...head, summary: m.summary }),
          ],
        };
      }
      case 'persist': {
        const m = outputOf<MappingResult>(rt.outputs, 'map');
        const [facts, evidence, coa] = outputOf<{ artifacts: ArtifactRef[] }>(rt.outputs, 'publish').artifacts;
        const doc = (ref: ArtifactRef, body: Record<string, unknown>) => ({ case_id: rt.spec.case_id, coa_version: m.coa_version, source_run_id: rt.spec.run_id, artifact_id: ref.artifact_id, sha256: ref.sha256, ...body });
        const writes = [
          { write_id: 'facts', collection: 'facts', operation: 'append' as const, document_id: runDocumentId(rt.spec, 'facts'), document: doc(facts, { facts: m.facts }) },
          { write_id: 'evidence-map', collection: 'evidence_map', operation: 'append' as const, document_id: runDocumentId(rt.spec, 'evidence_map'), document: doc(evidence, { evidence_map: m.evidence_map }) },
          { write_id: 'coa-map', collection: 'coa_map', operation: 'append' as const, document_id: runDocumentId(rt.spec, 'coa_map'), document: doc(coa, { coa_map: m.coa_map }) },
        ];
        // WRITE_MAPPING_OUTPUTS requires coa_version in scope: the maps are only meaningful under their taxonomy.
        return { writes: await performWrites(rt, LANE, writes, { coa_version: m.coa_version }) };
      }
      default:
        return unknownStep('MAPPING_AGENT', stepId);
    }
  },

  outcome(outputs) {
    const m = outputOf<MappingResult>(outputs, 'map');
    return {
      output_artifacts: outputOf<{ artifacts: ArtifactRef[] }>(outputs, 'publish').artifacts,
      result: {
        coa_version: m.coa_version, fact_count: m.facts.length,
        supported_coas: m.coa_map.filter((c) => c.fact_ids.length > 0).map((c) => c.coa_id), writes: outputOf<{ writes: WriteRecord[] }>(outputs, 'persist').writes,
      },
    };
  },
};
