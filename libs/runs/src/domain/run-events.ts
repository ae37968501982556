import type { AuthzDecidedData as AuthzDecidedEventData, PolicyVersions, RunCreatedData as RunCreatedEventData, RunError } from '@runledger/contracts';
import type { RunKind } from '@runledger/governance';

/** The lanes and roles versions a run pinned at its start. */
export type PolicyVersionsPin = PolicyVersions;

/** The artifact_ref fields a run records (contract 001: every input and output is referenced by one). */
export interface ArtifactRefLike {
  artifact_id: string;
  sha256: string;
  size_bytes: number;
  media_type: string;
  kind?: string;
  case_id?: string;
  name?: string;
}

export type { RunError };

/**
 * Everything pinned at run start (contract 001 §1): later checks of the run use these, never newer ones. The type is
 * generated from its schema (proto-contracts/schemas/events/run-created.schema.json), not written again here.
 */
export type RunCreatedData = RunCreatedEventData;

/** A choke point's or a run's authorisation decision, with what it was taken on (`inputs`: what-if replay re-decides it). */
export type AuthzDecidedData = AuthzDecidedEventData;

export interface EffectClaim {
  owner: string;
  attempt: number;
  lease_expires_at: string;
}

export type ToolCallStatus = 'ok' | 'failed' | 'timeout' | 'denied';

export type RunEvent =
  | { type: 'RunCreated'; data: RunCreatedData }
  | { type: 'AuthzDecided'; data: AuthzDecidedData }
  | { type: 'RunStarted'; data: Record<string, never> }
  | { type: 'StepCompleted'; data: { step_index: number; step_id: string; output: unknown; context?: Record<string, unknown>; memory_snapshot?: unknown } }
  | { type: 'ToolCallRequested'; data: { call_id: string; sequence: number; tool_name: string; parameters: Record<string, unknown>; child_run_id: string } }
  | { type: 'ToolCallRecorded'; data: { call_id: string; child_run_id: string; status: ToolCallStatus; result?: unknown; error?: RunError } }
  | { type: 'ChildRunStarted'; data: { child_run_id: string; run_kind: RunKind; agent_name: string } }
  | { type: 'RunCompleted'; data: { output_artifacts: ArtifactRefLike[]; response_hash_sha256?: string; result?: unknown } }
  | { type: 'RunFailed'; data: { error: RunError } }
  | { type: 'RunDenied'; data: { error: RunError } }
  | { type: 'RunCancelled'; data: { reason: string } }
  /** An operator's request (rl.runs.cancel); the run's worker answers it with RunCancelled at its next step. */
  | { type: 'RunCancelRequested'; data: { reason: string; requested_by: string } }
  /**
   * A child run's effect is being executed by `owner` until `lease_expires_at` (the effect's own timeout plus a
   * margin): another request for the same run waits for its outcome instead of running the effect again; a
   * claim whose lease ran out belongs to a crashed owner and may be taken over (the next attempt).
   */
  | { type: 'EffectClaimed'; data: EffectClaim }
  /** The owner gave its claim back without an outcome (the effect threw): the next request runs it at once. */
  | { type: 'EffectReleased'; data: { owner: string; attempt: number; reason: string } }
  /** Audit and domain events recorded on a run (ToolCallAudited, DbWriteAudited, DecisionRecorded …). */
  | { type: string & {}; data: unknown };

export const TERMINAL_TYPES = new Set(['RunCompleted', 'RunFailed', 'RunDenied', 'RunCancelled']);

import { canonicalJson, normalizeForHash, sha256Hex } from '@runledger/governance';

/**
 * The request hash of a child run: sha256 of the canonical, normalized request (stable key order,
 * volatile timestamps excluded, §2.1 normalization), so equal requests hash equally across retries.
 */
export function childRequestHash(request: unknown): string {
  // Through JSON first: what is hashed is what the log holds (DTO instances become plain data).
  return sha256Hex(canonicalJson(normalizeForHash(JSON.parse(JSON.stringify(request ?? null)))));
}

import { deterministicUuid } from '@runledger/kernel';

/**
 * A child run's id derives from its parent run and the caller's id for the action (call id, write id):
 * a retried action lands on the same child run, whose recorded outcome is returned instead of re-running.
 */
export function childRunId(kind: 'tool_gateway' | 'db_write' | 'promotion' | 'export' | 'agent', parentRunId: string, actionId: string): string {
  return deterministicUuid(kind, parentRunId, actionId);
}
