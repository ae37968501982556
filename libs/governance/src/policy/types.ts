/** The four kinds of privileged effect; each is reached only through its own child run. */
export const LANE_KINDS = ['tool', 'db_write', 'promotion', 'export'] as const;
export type LaneKind = (typeof LANE_KINDS)[number];

/**
 * How a lane partitions data:
 * `case` — the target case must be the run's case (unless the lane allows cross-case);
 * `user` — the target user must be the run's user (never overridable);
 * `shared` — the shared knowledge plane, no partition.
 */
export type LaneIsolation = 'case' | 'user' | 'shared';

/** Agent-level prohibitions, checked on every request in addition to the lane. */
export type AgentProhibition = 'cross_case_lookup' | 'external_export' | 'shared_knowledge_write';
/** Content prohibitions, enforced on promotion candidates by the sanitiser. */
export type ContentProhibition = 'raw_case_text' | 'client_identity' | 'privileged_notes';
export type Prohibition = AgentProhibition | ContentProhibition;

export type PrincipalKind = 'agent' | 'human' | 'system';

/** One lane of lanes.yaml, with defaults applied. */
export interface Lane {
  readonly name: string;
  readonly description?: string;
  readonly allowed_callers: readonly string[];
  /** Allowed actions per kind; the lane's kinds are exactly the keys present. */
  readonly actions: Readonly<Partial<Record<LaneKind, readonly string[]>>>;
  readonly required_scope: readonly string[];
  readonly isolation: LaneIsolation;
  readonly allows_cross_case: boolean;
  readonly prohibitions: readonly Prohibition[];
}

/** One role of roles.yaml, with defaults applied. */
export interface Role {
  readonly name: string;
  readonly principal: PrincipalKind;
  readonly description?: string;
  readonly lanes: readonly string[];
  readonly prohibitions: readonly AgentProhibition[];
}

/** The pair of policy versions a run pins at start (§1). */
export interface PolicyVersions {
  readonly lanes: string;
  readonly roles: string;
}

/** A validated, deeply frozen lanes + roles policy pair. */
export interface PolicySet {
  readonly contract_version: 'v1';
  readonly versions: PolicyVersions;
  /** sha256 of each file's parsed content (canonical JSON), to tell a re-used version with new content. */
  readonly digests: PolicyVersions;
  readonly lanes: Readonly<Record<string, Lane>>;
  readonly roles: Readonly<Record<string, Role>>;
}

/** The lane of that name, or undefined (safe for names such as `__proto__`). */
export function getLane(policy: PolicySet, name: string): Lane | undefined {
  return Object.hasOwn(policy.lanes, name) ? policy.lanes[name] : undefined;
}

/** The role of that name, or undefined (safe for names such as `__proto__`). */
export function getRole(policy: PolicySet, name: string): Role | undefined {
  return Object.hasOwn(policy.roles, name) ? policy.roles[name] : undefined;
}

/** The kinds a lane serves: the keys of its `actions`. */
export function laneKinds(lane: Lane): LaneKind[] {
  return LANE_KINDS.filter((kind) => lane.actions[kind] !== undefined);
}

/** Collections of the shared knowledge plane are named `shared_*` (a contract v1 naming rule). */
export function isSharedCollectionAction(action: string): boolean {
  const colon = action.indexOf(':');
  return colon > 0 && action.slice(colon + 1).startsWith('shared_');
}
