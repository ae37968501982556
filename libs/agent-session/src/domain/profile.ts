import { parseTargetRef } from './config/agent-config';
import { compileSchema } from './final-report/json-schema';
import { resolveSessionConfig, type SessionTunables } from './session-config';
import type { ReportFormat } from './types';

/**
 * An agent profile (contract 004 INV-AGT-001/002): a versioned definition of one session agent — prompt,
 * model targets, limits, allowed tools, output format and schema, the lane its tool calls use and its
 * budgets. Profiles are files; a run pins the id, version and content hash at start.
 */
export interface AgentProfile {
  /** Lowercase alphanumeric with hyphens (INV-AGT-002 ID format). */
  readonly id: string;
  readonly version: string;
  readonly description?: string;
  /** The caller identity its tool calls are authorised as (a role of the pinned roles policy). */
  readonly role: string;
  /** The lane its tool calls name; the lane must allow each tool. */
  readonly lane?: string;
  /** `provider/model`, in cycling order; providers come from the service's agent configuration. */
  readonly targets: readonly string[];
  /** Gateway tool names offered to the model (MCP tools are `<server>__<tool>`); profile ids of sub-agents go in `subAgents`. */
  readonly tools?: readonly string[];
  /** Profiles this agent may start as sub-agents (a tool `agent__<id>` each). */
  readonly subAgents?: readonly string[];
  readonly session?: SessionTunables & { readonly expectedOutputFormat?: ReportFormat };
  readonly budget?: { readonly maxTotalTokens?: number; readonly maxCostUsd?: number };
  /** INV-DT-001: how deep a chain of sub-agents under this one may go (default 5). */
  readonly maxDelegationDepth?: number;
}

export const PROFILE_ID = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const UPPER_NAME = /^[A-Z][A-Z0-9_]{1,63}$/;
const KNOWN_KEYS = new Set(['id', 'version', 'description', 'role', 'lane', 'targets', 'tools', 'subAgents', 'session', 'budget', 'maxDelegationDepth']);

export type ProfileCheck = { ok: true; profile: AgentProfile } | { ok: false; errors: string[]; schemaErrors: boolean };

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** INV-AGT-001: a profile is registered only when every field is valid; errors say which. */
export function validateAgentProfile(raw: unknown): ProfileCheck {
  const errors: string[] = [];
  let schemaErrors = false;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, errors: ['a profile must be a JSON object'], schemaErrors };
  const p = raw as Record<string, unknown>;
  for (const key of Object.keys(p)) if (!KNOWN_KEYS.has(key)) errors.push(`unknown field '${key}'`);
  if (typeof p.id !== 'string' || !PROFILE_ID.test(p.id) || p.id.length > 64) errors.push('id must be lowercase alphanumeric with hyphens (at most 64 characters)');
  if (typeof p.version !== 'string' || p.version.length === 0 || p.version.length > 64) errors.push('version must be a non-empty string');
  if (typeof p.role !== 'string' || !UPPER_NAME.test(p.role)) errors.push('role must be an upper-case role name');
  if (p.lane !== undefined && (typeof p.lane !== 'string' || !UPPER_NAME.test(p.lane))) errors.push('lane must be an upper-case lane name');
  if (!isStringArray(p.targets) || p.targets.length === 0) errors.push('targets must list at least one provider/model');
  else for (const t of p.targets) if (!parseTargetRef(t)) errors.push(`target '${t}' is not of the form provider/model`);
  if (p.tools !== undefined && !isStringArray(p.tools)) errors.push('tools must be a list of tool names');
  if (p.subAgents !== undefined && (!isStringArray(p.subAgents) || p.subAgents.some((s) => !PROFILE_ID.test(s)))) errors.push('subAgents must be a list of profile ids');
  if (isStringArray(p.tools) && p.tools.length > 0 && p.lane === undefined) errors.push('a profile with tools needs a lane');
  if (p.maxDelegationDepth !== undefined && (!Number.isInteger(p.maxDelegationDepth) || (p.maxDelegationDepth as number) < 0)) errors.push('maxDelegationDepth must be a non-negative integer');
  const budget = p.budget as Record<string, unknown> | undefined;
  if (budget !== undefined) {
    if (typeof budget !== 'object' || budget === null) errors.push('budget must be an object');
    else for (const k of ['maxTotalTokens', 'maxCostUsd']) if (budget[k] !== undefined && !(typeof budget[k] === 'number' && (budget[k] as number) > 0)) errors.push(`budget.${k} must be a positive number`);
  }
  const session = (p.session ?? {}) as SessionTunables & { expectedOutputFormat?: ReportFormat };
  if (typeof session !== 'object' || session === null || Array.isArray(session)) errors.push('session must be an object');
  else {
    // The tunables are checked as a session would check them; the real targets are resolved at run start.
    const resolved = resolveSessionConfig({ ...session, targets: [{ provider: 'profile', model: 'check' }] });
    if (!resolved.ok) errors.push(...resolved.errors.map((e) => `session.${e}`));
    if (session.outputSchema !== undefined) {
      const compiled = compileSchema(session.outputSchema);
      if (!compiled.ok) {
        schemaErrors = true;
        errors.push(`session.outputSchema does not compile: ${compiled.error}`);
      }
    }
  }
  return errors.length > 0 ? { ok: false, errors, schemaErrors } : { ok: true, profile: p as unknown as AgentProfile };
}

/** A profile file refused, and why: it is left out, the others register. */
export interface RefusedProfile {
  source: string;
  errors: string[];
}

/**
 * The profiles of a registry, each judged alone: an invalid one is refused with its errors and the others register
 * (one bad file must not take every agent down). INV-AGT-002: ids are unique within a registry; a second definition
 * of an id is refused, not merged.
 */
export function registerProfiles(raws: ReadonlyArray<{ source: string; raw: unknown }>): { profiles: AgentProfile[]; refused: RefusedProfile[] } {
  const refused: RefusedProfile[] = [];
  const byId = new Map<string, { profile: AgentProfile; source: string }>();
  for (const { source, raw } of raws) {
    const checked = validateAgentProfile(raw);
    if (!checked.ok) {
      refused.push({ source, errors: checked.errors });
      continue;
    }
    const existing = byId.get(checked.profile.id);
    if (existing) {
      refused.push({ source, errors: [`agent id '${checked.profile.id}' is already registered by ${existing.source}`] });
      continue;
    }
    byId.set(checked.profile.id, { profile: checked.profile, source });
  }
  return { profiles: [...byId.values()].map((v) => v.profile), refused };
}

/** The tool a sub-agent is offered as. */
export const subAgentToolName = (profileId: string): string => `agent__${profileId.replace(/-/g, '_')}`;
