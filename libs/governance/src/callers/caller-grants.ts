import { JSON_BOUNDS, jsonContentProblem } from '@runledger/kernel';

/**
 * Caller grants (policy/callers.yaml): what a caller identity may put into Runledger through its ingest door. Pure:
 * the file's text is parsed by the loader, these functions only check shapes and decide.
 */

/** What one input kind may be. */
export interface KindRule {
  media_types: string[];
  max_bytes: number;
  /** The content must parse as a JSON object. */
  json_object: boolean;
}

export interface CallerRole {
  name: string;
  /**
   * The contract principal (roles.yaml) whose decisions this role's callers put in: a role that supplies an approval
   * kind (APPROVAL_KINDS) must act as its approver, and a check that trusts an approval asks approverOf.
   */
  acts_as?: string;
  /** Exact case ids, or prefixes ending in `*`. */
  cases: string[];
  /** Per agent (roles.yaml), the input kinds this role may supply. */
  agents: Record<string, string[]>;
}

export interface CallerGrants {
  version: string;
  kinds: Record<string, KindRule>;
  roles: Record<string, CallerRole>;
  /** caller identity → role name */
  callers: Record<string, string>;
}

/**
 * Input kinds that are approvals, and the principal who gives each: an artifact of such a kind approves only when a
 * caller whose role acts as that principal ingested it (§4.5: a promotion ticket is an ATTORNEY_ADMIN's approval).
 */
export const APPROVAL_KINDS: Readonly<Record<string, string>> = { promotion_ticket: 'ATTORNEY_ADMIN' };

/** The largest artifact the store takes (rl.artifacts.put's limit); no kind may allow more. */
export const INGEST_STORE_MAX_BYTES = 8 * 1024 * 1024;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string' && x.length > 0);

/** The grants from the parsed file, or every problem found (a bad file stops the service at start). */
export function parseCallerGrants(doc: unknown): { ok: true; grants: CallerGrants } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  if (!isRecord(doc)) return { ok: false, problems: ['the file is not a mapping'] };
  if (typeof doc.version !== 'string' || !doc.version) problems.push('version is missing');
  const kinds: Record<string, KindRule> = {};
  for (const [name, raw] of Object.entries(isRecord(doc.kinds) ? doc.kinds : {})) {
    if (!isRecord(raw) || !isStringList(raw.media_types) || typeof raw.max_bytes !== 'number' || !Number.isInteger(raw.max_bytes) || raw.max_bytes < 1) {
      problems.push(`kind ${name}: needs media_types (a list) and max_bytes (a positive integer)`);
      continue;
    }
    if (raw.max_bytes > INGEST_STORE_MAX_BYTES) problems.push(`kind ${name}: max_bytes ${raw.max_bytes} is above the store's ${INGEST_STORE_MAX_BYTES}`);
    kinds[name] = { media_types: raw.media_types, max_bytes: raw.max_bytes, json_object: raw.json_object === true };
  }
  const roles: Record<string, CallerRole> = {};
  for (const [name, raw] of Object.entries(isRecord(doc.roles) ? doc.roles : {})) {
    if (!isRecord(raw) || !isStringList(raw.cases) || !isRecord(raw.agents)) {
      problems.push(`role ${name}: needs cases (a list) and agents (a mapping)`);
      continue;
    }
    const agents: Record<string, string[]> = {};
    for (const [agent, list] of Object.entries(raw.agents)) {
      if (!isStringList(list)) problems.push(`role ${name}: agent ${agent} needs a list of kinds`);
      else {
        for (const kind of list) if (!kinds[kind]) problems.push(`role ${name}: agent ${agent} names kind ${kind}, which kinds does not define`);
        agents[agent] = list;
      }
    }
    for (const c of raw.cases) if (c.includes('*') && (c.indexOf('*') !== c.length - 1)) problems.push(`role ${name}: case pattern ${c} may only end in *`);
    if (raw.acts_as !== undefined && (typeof raw.acts_as !== 'string' || !raw.acts_as)) problems.push(`role ${name}: acts_as must name a principal`);
    const actsAs = typeof raw.acts_as === 'string' && raw.acts_as ? raw.acts_as : undefined;
    // Granting an approval kind makes the role's callers approvers: the file must say so, not imply it.
    for (const kind of new Set(Object.values(agents).flat())) {
      const approver = APPROVAL_KINDS[kind];
      if (approver && actsAs !== approver) problems.push(`role ${name}: supplies ${kind}, an ${approver}'s approval, so it must declare acts_as: ${approver}`);
    }
    roles[name] = { name, cases: raw.cases, agents, ...(actsAs ? { acts_as: actsAs } : {}) };
  }
  const callers: Record<string, string> = {};
  for (const [caller, role] of Object.entries(isRecord(doc.callers) ? doc.callers : {})) {
    if (typeof role !== 'string' || !roles[role]) problems.push(`caller ${caller}: role ${String(role)} is not defined`);
    else callers[caller] = role;
  }
  return problems.length ? { ok: false, problems } : { ok: true, grants: { version: String(doc.version), kinds, roles, callers } };
}

export interface IngestAsk {
  caller: string;
  case_id: string;
  agent_name: string;
  kind: string;
  media_type: string;
}

/** Why the grants refuse an ingest (recorded as the ingest run's deny), or null. */
export type GrantRefusal = { code: 'CASE.NOT_GRANTED' | 'ARTIFACT.KIND_DENIED'; reason: string };

/**
 * Whether a caller's role covers a case: the first half of every caller authorisation (an ingest into the case, an
 * agent run started in it). A caller with no role has no case.
 */
export function caseGranted(grants: CallerGrants, caller: string, caseId: string): { role: CallerRole } | { code: 'CASE.NOT_GRANTED'; reason: string } {
  const roleName = grants.callers[caller];
  const role = roleName ? grants.roles[roleName] : undefined;
  if (!role) return { code: 'CASE.NOT_GRANTED', reason: `Caller ${caller} has no role in ${grants.version}: it may use no case.` };
  if (!role.cases.some((pattern) => caseMatches(pattern, caseId))) return { code: 'CASE.NOT_GRANTED', reason: `Role ${role.name} may not use case ${caseId}.` };
  return { role };
}

/**
 * The authorisation of an ingest: the caller's role covers the case, and lets it supply this kind to this agent.
 * A caller with no role may put nothing anywhere.
 */
export function authorizeIngest(grants: CallerGrants, ask: IngestAsk): { role: string } | GrantRefusal {
  const granted = caseGranted(grants, ask.caller, ask.case_id);
  if ('code' in granted) return granted;
  const { role } = granted;
  if (!(role.agents[ask.agent_name] ?? []).includes(ask.kind)) {
    return { code: 'ARTIFACT.KIND_DENIED', reason: `Role ${role.name} may not supply ${ask.kind} inputs to ${ask.agent_name}.` };
  }
  return { role: role.name };
}

/**
 * Whether, under these grants, role `roleName` gives approvals of `kind`: it acts as the kind's approver and may
 * supply the kind. Asked of the role an ingest recorded, so a role since removed or changed approves no more.
 */
export function approverOf(grants: CallerGrants, roleName: string, kind: string): { ok: true } | { ok: false; reason: string } {
  const approver = APPROVAL_KINDS[kind];
  const role = Object.hasOwn(grants.roles, roleName) ? grants.roles[roleName] : undefined;
  if (!approver) return { ok: false, reason: `${kind} is no approval kind.` };
  if (!role) return { ok: false, reason: `role ${roleName} is not in the caller grants ${grants.version}` };
  if (role.acts_as !== approver || !Object.values(role.agents).some((kinds) => kinds.includes(kind))) {
    return { ok: false, reason: `role ${roleName} does not approve ${kind} as ${approver} in the caller grants ${grants.version}` };
  }
  return { ok: true };
}

function caseMatches(pattern: string, caseId: string): boolean {
  return pattern.endsWith('*') ? caseId.startsWith(pattern.slice(0, -1)) : pattern === caseId;
}

/** What the content must be for its kind: media type, size, JSON shape. Checked before anything is stored or recorded. */
export function contentProblem(rule: KindRule, kind: string, mediaType: string, bytes: Uint8Array): { code: 'ARTIFACT.TYPE_DENIED' | 'ARTIFACT.TOO_LARGE'; reason: string } | null {
  const base = mediaType.split(';')[0].trim();
  if (!rule.media_types.includes(base)) return { code: 'ARTIFACT.TYPE_DENIED', reason: `A ${kind} is ${rule.media_types.join(' or ')}, not ${base}.` };
  if (bytes.length > rule.max_bytes) return { code: 'ARTIFACT.TOO_LARGE', reason: `The artifact is ${bytes.length} bytes; a ${kind} may be at most ${rule.max_bytes}.` };
  if (rule.json_object) {
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch {
      return { code: 'ARTIFACT.TYPE_DENIED', reason: `A ${kind} must be a JSON object; the content is not JSON.` };
    }
    if (!isRecord(value)) return { code: 'ARTIFACT.TYPE_DENIED', reason: `A ${kind} must be a JSON object.` };
    // The request's nesting bound and well-formed text (jsonContentProblem says why): refused here, before any run reads it.
    const problem = jsonContentProblem(value);
    if (problem && 'tooDeep' in problem) {
      return { code: 'ARTIFACT.TYPE_DENIED', reason: `A ${kind} may be nested at most ${JSON_BOUNDS.maxDepth} levels (objects and arrays); the content is nested deeper.` };
    }
    if (problem) return { code: 'ARTIFACT.TYPE_DENIED', reason: `A ${kind} must hold well-formed text: ${problem.illFormed}.` };
  }
  return null;
}
