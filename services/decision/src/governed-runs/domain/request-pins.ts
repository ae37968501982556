import type { PolicyVersions } from '@runledger/governance';
import type { RunCreatedData } from '@runledger/runs';
import { canonicalUuid } from '@runledger/kernel';
import { failureStrategyProblem } from './agents';

/** What a request says about where it sits and what it pins (§2.1), before any default applies. */
export interface StatedPins {
  case_id: string;
  parent_run_id?: string;
  policy_versions?: PolicyVersions;
}

/** What the log holds for the request: the run its run_id names, its parent run, and today's policy. */
export interface RecordedContext {
  /** RunCreated of the run named by the request's run_id, if that run exists. */
  existing?: RunCreatedData;
  /** RunCreated of the request's parent_run_id, if the parent exists. */
  parent?: RunCreatedData;
  current: PolicyVersions;
}

export type ResolvedPins =
  | { ok: true; policy_versions: PolicyVersions; /** Undefined for a new top-level run: it is its own root. */ root_run_id?: string }
  | { ok: false; code: 'INVALID_INPUT' | 'CASE.CROSS_CASE_DENIED'; message: string };

const same = (a: PolicyVersions, b: PolicyVersions) => a.lanes === b.lanes && a.roles === b.roles;
const show = (v: PolicyVersions) => `lanes ${v.lanes} / roles ${v.roles}`;

/**
 * The policy versions and root a request runs under (§1 "pin policy_versions at run start"). A caller may never
 * choose a looser, older policy for new work, so the versions come from the log, not the caller:
 * - a run that already exists (a retry naming its run_id) keeps the versions and root it was created with;
 * - a child run inherits its parent's versions and root, and the parent must be a recorded run of the same case
 *   (a parent elsewhere would graft this run onto another case's tree);
 * - a new top-level run pins the current versions and is its own root.
 * A caller may restate the versions, but only as exactly these values (the root likewise, checked by the caller
 * once the run id is known).
 */
export function resolvePins(stated: StatedPins, recorded: RecordedContext): ResolvedPins {
  const invalid = (message: string): ResolvedPins => ({ ok: false, code: 'INVALID_INPUT', message });
  let pinned: PolicyVersions;
  let root: string | undefined;
  let source: string;
  if (recorded.existing) {
    if (canonicalUuid(recorded.existing.parent_run_id ?? undefined) !== stated.parent_run_id) return invalid('run_id already names a run with another parent_run_id.');
    pinned = recorded.existing.policy_versions;
    root = recorded.existing.root_run_id;
    source = 'the run named by run_id';
  } else if (stated.parent_run_id) {
    const parent = recorded.parent;
    if (!parent) return invalid('parent_run_id names no recorded run.');
    if (parent.case_id !== stated.case_id) return { ok: false, code: 'CASE.CROSS_CASE_DENIED', message: 'parent_run_id names a run of another case.' };
    pinned = parent.policy_versions;
    root = parent.root_run_id;
    source = 'the parent run';
  } else {
    pinned = recorded.current;
    source = 'the current policy (a new run cannot pick an older one)';
  }
  if (stated.policy_versions && !same(stated.policy_versions, pinned)) {
    return invalid(`POLICY: policy_versions ${show(stated.policy_versions)} are not those of ${source}: ${show(pinned)}.`);
  }
  return { ok: true, policy_versions: { lanes: pinned.lanes, roles: pinned.roles }, ...(root ? { root_run_id: root } : {}) };
}

/**
 * Parameters land in RunCreated, in the permanent log. Client identifiers are the very thing promotion must keep
 * out of shared knowledge, so they travel as an artifact (kind `client_identifiers`) and only its reference is logged.
 * A failure strategy the workflows do not know is refused too (failureStrategyProblem), not run as the default, for a
 * new run only: a retry of a run already `recorded` (before this refusal, with another strategy) gets its outcome, and
 * the run runs as failFast (README, contract 004 INV-PE-003).
 */
export function parametersProblem(parameters: Record<string, unknown>, { recorded = false }: { recorded?: boolean } = {}): string | undefined {
  if (Object.hasOwn(parameters, 'client_identifiers')) {
    return 'parameters.client_identifiers is not accepted: parameters are recorded in the permanent log. Pass the identifiers as a client_identifiers input artifact.';
  }
  return recorded ? undefined : failureStrategyProblem(parameters);
}
