import { sha256Hex } from '@runledger/kernel';
import type { ArtifactRef } from '../artifacts/artifact-ref';
import type { PolicyVersions } from '../policy/types';
import { canonicalJson } from './canonical-json';

export { sha256Hex };

/** Keys dropped by {@link normalizeForHash} wherever they appear (exact, case-sensitive). */
export const VOLATILE_KEYS: readonly string[] = Object.freeze(['timestamp', 'ts', 'now']);
/**
 * Any key ending with this suffix is volatile too: `created_at`, `updated_at`, `requested_at`,
 * `recorded_at`, `occurred_at` … (snake_case, as all contract fields are).
 */
export const VOLATILE_KEY_SUFFIX = '_at';

/** True when {@link normalizeForHash} drops a member with this key. */
export function isVolatileKey(key: string): boolean {
  return VOLATILE_KEYS.includes(key) || (key.endsWith(VOLATILE_KEY_SUFFIX) && key.length > VOLATILE_KEY_SUFFIX.length);
}

/**
 * §2 hashing normalisation: returns a copy without volatile timestamp members (see
 * {@link isVolatileKey}) and without `undefined` members, at every depth. Key order is made stable
 * by {@link canonicalJson}, which every hash here applies afterwards.
 *
 * Consequence to keep in mind: a *semantic* time inside parameters or payloads (a due date) must not
 * be named `*_at`, or it is ignored by the hash; name it `due_date`, `due`, `deadline` ….
 */
export function normalizeForHash(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeForHash);
  if (value !== null && typeof value === 'object' && isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) {
      if (member === undefined || isVolatileKey(key)) continue;
      out[key] = normalizeForHash(member);
    }
    return out;
  }
  return value; // scalars, and non-JSON values that canonicalJson will refuse
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** The §2.1 agent request fields that `requestHashSha256` reads. Other fields may be present and are ignored. */
export interface AgentRequestHashInput {
  agent_name: string;
  case_id?: string;
  run_id?: string;
  parent_run_id?: string;
  root_run_id?: string;
  correlation_id?: string;
  policy_versions: PolicyVersions;
  taxonomy_versions?: { coa?: string; tags?: string; entities?: string };
  input_artifacts: readonly ArtifactRef[];
  parameters: Record<string, unknown>;
}

/**
 * `request_hash_sha256` of an agent request (§2.1): the same logical request always hashes the same.
 *
 * Included: `agent_name`, `case_id`, `policy_versions`, `taxonomy_versions`, `parameters`, and for
 * each input artifact (in order) its `kind`, `media_type` and `sha256` — what the agent is asked to do,
 * to which case, under which rules, on which bytes.
 * Excluded: `run_id`, `parent_run_id`, `root_run_id`, `correlation_id` (who/when identities of one
 * attempt, not content: a retried or re-routed request is the same request), `artifact_id`, `name`,
 * `size_bytes` of inputs (an id or file name is not content; size follows from the sha256), and
 * volatile timestamps anywhere (see {@link normalizeForHash}).
 */
export function requestHashSha256(request: AgentRequestHashInput): string {
  const logical = {
    agent_name: request.agent_name,
    case_id: request.case_id ?? null,
    policy_versions: { lanes: request.policy_versions.lanes, roles: request.policy_versions.roles },
    taxonomy_versions: request.taxonomy_versions ?? null,
    input_artifacts: request.input_artifacts.map((a) => ({ kind: a.kind, media_type: a.media_type, sha256: a.sha256 })),
    parameters: request.parameters,
  };
  return sha256Hex(canonicalJson(normalizeForHash(logical)));
}

/** `response_hash_sha256` of a response payload (§2.2): sha256 of its normalised canonical JSON. */
export function responseHashSha256(payload: unknown): string {
  return sha256Hex(canonicalJson(normalizeForHash(payload)));
}
