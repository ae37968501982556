import { isSharedCollectionAction, type AgentProhibition, type LaneKind, type Prohibition } from './types';

// Raw shapes as they come out of the YAML once the JSON Schema has accepted them (defaults not yet applied).
export interface RawLane {
  name: string;
  description?: string;
  allowed_callers: string[];
  actions: Partial<Record<LaneKind, string[]>>;
  required_scope: string[];
  isolation: 'case' | 'user' | 'shared';
  allows_cross_case?: boolean;
  prohibitions?: Prohibition[];
}
export interface RawLanesFile {
  version: string;
  contract_version: 'v1';
  lanes: RawLane[];
}
export interface RawRole {
  name: string;
  principal: 'agent' | 'human' | 'system';
  description?: string;
  lanes: string[];
  prohibitions?: AgentProhibition[];
}
export interface RawRolesFile {
  version: string;
  contract_version: 'v1';
  roles: RawRole[];
}

function duplicates(names: readonly string[]): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const n of names) (seen.has(n) ? dup : seen).add(n);
  return [...dup];
}

/** Rules inside lanes.yaml that JSON Schema cannot say. */
export function checkLanes(file: RawLanesFile): string[] {
  const problems = duplicates(file.lanes.map((l) => l.name)).map((n) => `lanes.yaml: duplicate lane "${n}"`);
  for (const lane of file.lanes) {
    const at = `lanes.yaml: lane ${lane.name}`;
    const prohibitions = lane.prohibitions ?? [];
    // Without the partition key among the required scope fields, the isolation check would have nothing to compare.
    if (lane.isolation === 'case' && !lane.required_scope.includes('case_id')) {
      problems.push(`${at}: isolation "case" needs case_id in required_scope`);
    }
    if (lane.isolation === 'user' && !lane.required_scope.includes('user_id')) {
      problems.push(`${at}: isolation "user" needs user_id in required_scope`);
    }
    if (lane.allows_cross_case && lane.isolation !== 'case') {
      problems.push(`${at}: allows_cross_case only applies to isolation "case"`);
    }
    if (lane.allows_cross_case && prohibitions.includes('cross_case_lookup')) {
      problems.push(`${at}: allows_cross_case contradicts its prohibition cross_case_lookup`);
    }
    if (lane.actions.export && prohibitions.includes('external_export')) {
      problems.push(`${at}: export actions contradict its prohibition external_export`);
    }
    if (writesSharedKnowledge(lane.actions) && prohibitions.includes('shared_knowledge_write')) {
      problems.push(`${at}: shared-knowledge actions contradict its prohibition shared_knowledge_write`);
    }
  }
  return problems;
}

/** Rules inside roles.yaml that JSON Schema cannot say. */
export function checkRoles(file: RawRolesFile): string[] {
  return duplicates(file.roles.map((r) => r.name)).map((n) => `roles.yaml: duplicate role "${n}"`);
}

/**
 * Rules across both files. Access needs both sides to agree (role lists the lane, lane lists the role),
 * so neither file alone can widen access; a role's prohibitions may not be contradicted by its lanes.
 */
export function checkAcross(lanesFile: RawLanesFile, rolesFile: RawRolesFile): string[] {
  const problems: string[] = [];
  const lanes = new Map(lanesFile.lanes.map((l) => [l.name, l]));
  const roles = new Map(rolesFile.roles.map((r) => [r.name, r]));
  for (const role of rolesFile.roles) {
    const prohibitions = role.prohibitions ?? [];
    for (const laneName of role.lanes) {
      const lane = lanes.get(laneName);
      const at = `roles.yaml: role ${role.name}`;
      if (!lane) {
        problems.push(`${at}: unknown lane "${laneName}"`);
        continue;
      }
      if (!lane.allowed_callers.includes(role.name)) {
        problems.push(`${at}: lists lane ${laneName}, whose allowed_callers do not include it`);
      }
      if (prohibitions.includes('external_export') && lane.actions.export) {
        problems.push(`${at}: prohibition external_export contradicts lane ${laneName} (export)`);
      }
      if (prohibitions.includes('shared_knowledge_write') && writesSharedKnowledge(lane.actions)) {
        problems.push(`${at}: prohibition shared_knowledge_write contradicts lane ${laneName}`);
      }
      if (prohibitions.includes('cross_case_lookup') && lane.allows_cross_case) {
        problems.push(`${at}: prohibition cross_case_lookup contradicts lane ${laneName} (allows_cross_case)`);
      }
    }
  }
  for (const lane of lanesFile.lanes) {
    for (const caller of lane.allowed_callers) {
      const role = roles.get(caller);
      const at = `lanes.yaml: lane ${lane.name}`;
      if (!role) problems.push(`${at}: unknown caller "${caller}"`);
      else if (!role.lanes.includes(lane.name)) {
        problems.push(`${at}: allows caller ${caller}, whose role does not list this lane`);
      }
    }
  }
  return problems;
}

function writesSharedKnowledge(actions: RawLane['actions']): boolean {
  if (actions.promotion) return true;
  return (actions.db_write ?? []).some(isSharedCollectionAction);
}
