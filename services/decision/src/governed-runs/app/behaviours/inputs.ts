import type { ArtifactRef } from '@runledger/governance';
import { deterministicUuid, JSON_BOUNDS, jsonContentProblem } from '@runledger/kernel';
import { invalidInput } from '../../domain/errors';
import type { AgentRunSpec } from '../../domain/run-spec';
import type { DbWrite } from '../agent-effects';
import type { StepRuntime } from './behaviour';

export function inputsOfKind(spec: AgentRunSpec, ...kinds: string[]): ArtifactRef[] {
  return spec.input_artifacts.filter((a) => kinds.includes(a.kind));
}

export function requireInput(spec: AgentRunSpec, kind: string): ArtifactRef {
  const ref = inputsOfKind(spec, kind)[0];
  if (!ref) throw invalidInput(`${spec.agent_name} needs a ${kind} input artifact.`);
  return ref;
}

/**
 * An input artifact's JSON, within the request bound on nesting and of well-formed text: a step's output is
 * checkpointed as JSON, and a deeper value (an artifact stored before ingest checked it) would overflow the stack there
 * on every redelivery; a lone surrogate would be copied into a document db-write refuses. Refused as INVALID_INPUT
 * instead, which ends the run at once: no retry can make the content valid.
 */
export function parseJson(text: string, what: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw invalidInput(`${what} is not valid JSON.`);
  }
  const problem = jsonContentProblem(value);
  if (problem && 'tooDeep' in problem) throw invalidInput(`${what} is nested deeper than ${JSON_BOUNDS.maxDepth} levels.`);
  if (problem) throw invalidInput(`${what} is not usable: ${problem.illFormed}.`);
  return value;
}

export async function readJson(rt: StepRuntime, lane: string, ref: ArtifactRef): Promise<unknown> {
  const { text } = await rt.effects.read(lane, ref);
  return parseJson(text, `Artifact ${ref.artifact_id} (${ref.kind})`);
}

/** Documents of a run get ids derived from the run and what they are, so a repeated write is the same write. */
export function runDocumentId(spec: AgentRunSpec, what: string): string {
  return deterministicUuid(spec.run_id, 'document', what);
}

/** Case entities are keyed by case and normalised name: two runs naming the same person upsert one entity. */
export function entityWrite(spec: AgentRunSpec, entity: { entity_type: string; name: string; role: string }): DbWrite {
  const document_id = deterministicUuid(spec.case_id, 'entity', entity.entity_type, entity.name.toLowerCase());
  return {
    write_id: `entity:${document_id}`, collection: 'entities', operation: 'upsert', document_id,
    document: { case_id: spec.case_id, entity_type: entity.entity_type, name: entity.name, role: entity.role, source_run_id: spec.run_id },
  };
}

export interface WriteRecord {
  collection: string;
  document_id: string;
  child_run_id: string | null;
}

/** Performs writes one after another (each its own db_write child run) and records what was written. */
export async function performWrites(rt: StepRuntime, lane: string, writes: readonly DbWrite[], scope: Record<string, string> = {}): Promise<WriteRecord[]> {
  const done: WriteRecord[] = [];
  for (const w of writes) {
    const result = await rt.effects.write(lane, w, scope);
    done.push({ collection: w.collection, document_id: w.document_id, child_run_id: result.child_run_id ?? null });
  }
  return done;
}
