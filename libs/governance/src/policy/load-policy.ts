import { AppError } from '@runledger/kernel';
import { parseDocument } from 'yaml';
import { canonicalJson } from '../hashing/canonical-json';
import { sha256Hex } from '../hashing/hashes';
import { checkSchema } from '../schemas/validators';
import { checkAcross, checkLanes, checkRoles, type RawLanesFile, type RawRolesFile } from './policy-checks';
import type { Lane, PolicySet, Role } from './types';

/** The policy files are not valid; `problems` lists every problem found, one line each. */
export class PolicyError extends AppError {
  readonly problems: readonly string[];
  constructor(problems: string[]) {
    super('POLICY.INVALID', `The policy files are not valid (${problems.length} problem${problems.length === 1 ? '' : 's'}).`, problems);
    this.name = 'PolicyError';
    this.problems = Object.freeze([...problems]);
  }
}

/** The text of lanes.yaml and roles.yaml; reading the files is the caller's I/O. */
export interface PolicySources {
  lanesYaml: string;
  rolesYaml: string;
}

/**
 * Parses and validates a lanes + roles policy pair into a deeply frozen {@link PolicySet}.
 * Throws {@link PolicyError} listing every problem: YAML syntax, JSON Schema (missing version, unknown
 * kind, unknown property …), duplicate lanes or roles, and cross-file disagreements (a role listing an
 * unknown lane, a lane allowing a caller whose role does not list it, prohibitions contradicted by lanes).
 */
export function loadPolicy(sources: PolicySources): PolicySet {
  const problems: string[] = [];
  const lanesDoc = parseYaml('lanes.yaml', sources.lanesYaml, problems);
  const rolesDoc = parseYaml('roles.yaml', sources.rolesYaml, problems);

  const lanesFile = lanesDoc.ok ? validate<RawLanesFile>('lanes', 'lanes.yaml', lanesDoc.value, problems) : undefined;
  const rolesFile = rolesDoc.ok ? validate<RawRolesFile>('roles', 'roles.yaml', rolesDoc.value, problems) : undefined;
  if (lanesFile) problems.push(...checkLanes(lanesFile));
  if (rolesFile) problems.push(...checkRoles(rolesFile));
  if (lanesFile && rolesFile) problems.push(...checkAcross(lanesFile, rolesFile));
  if (problems.length > 0 || !lanesFile || !rolesFile) throw new PolicyError(problems);

  return deepFreeze({
    contract_version: 'v1' as const,
    versions: { lanes: lanesFile.version, roles: rolesFile.version },
    digests: { lanes: sha256Hex(canonicalJson(lanesFile)), roles: sha256Hex(canonicalJson(rolesFile)) },
    lanes: Object.fromEntries(lanesFile.lanes.map((l) => [l.name, toLane(l)])),
    roles: Object.fromEntries(rolesFile.roles.map((r) => [r.name, toRole(r)])),
  });
}

function parseYaml(file: string, text: string, problems: string[]): { ok: true; value: unknown } | { ok: false } {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    // The first line of a yaml error names the problem and its position; the rest is a code excerpt.
    for (const e of doc.errors) problems.push(`${file}: YAML error: ${e.message.split('\n')[0]}`);
    return { ok: false };
  }
  return { ok: true, value: doc.toJS({ maxAliasCount: 100 }) };
}

function validate<T>(schema: 'lanes' | 'roles', file: string, value: unknown, problems: string[]): T | undefined {
  if (value === null || value === undefined) {
    problems.push(`${file}: the file is empty`);
    return undefined;
  }
  const result = checkSchema(schema, value);
  if (result.ok) return value as T;
  problems.push(...result.errors.map((e) => `${file}: ${describeSchemaError(e, value)}`));
  return undefined;
}

// Schema errors point at `/lanes/3/actions`; naming the lane makes the line readable.
function describeSchemaError(error: string, doc: unknown): string {
  const match = /^\/(lanes|roles)\/(\d+)(\/\S*)?: (.*)$/.exec(error);
  if (!match) return error;
  const [, list, index, rest = '', message] = match;
  const entry = (doc as Record<string, unknown[]>)[list]?.[Number(index)] as { name?: unknown } | undefined;
  const label = typeof entry?.name === 'string' ? `${list === 'lanes' ? 'lane' : 'role'} ${entry.name}` : `${list}[${index}]`;
  if (rest === '/actions' && message.startsWith('unknown property')) {
    return `${label}: unknown kind ${message.slice('unknown property '.length)} (allowed: tool, db_write, promotion, export)`;
  }
  return `${label}${rest ? ` ${rest.slice(1)}` : ''}: ${message}`;
}

function toLane(raw: RawLanesFile['lanes'][number]): Lane {
  return {
    ...raw,
    allows_cross_case: raw.allows_cross_case ?? false,
    prohibitions: raw.prohibitions ?? [],
  };
}

function toRole(raw: RawRolesFile['roles'][number]): Role {
  return { ...raw, prohibitions: raw.prohibitions ?? [] };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}
