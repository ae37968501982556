import { freezeDeep, type DeepReadonly } from '../shared/freeze';
import { err, ok, type Result } from '../shared/result';
import { compileSchema, type ValidateFunction } from '@runledger/contract-schemas';
import { formatAjvErrors } from '../shared/schema';
import { planWorkflow } from '../workflow/plan';
import type { WorkflowStep } from '../workflow/types';

export const AGENT_ID_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$';
export const DEFAULT_MAX_DELEGATION_DEPTH = 5;

export interface AgentProfileInput {
  id: string;
  name: string;
  description: string;
  systemPrompt: string;
  coreAbilities?: string[];
  abilities?: string[];
  exampleTasks?: string[];
  notForTasks?: string[];
  keywords?: string[];
  workflow?: WorkflowStep[];
  enabled?: boolean;
  maxDelegationDepth?: number;
}

/** A validated profile: optional lists defaulted, deeply frozen, safe to share. */
export type AgentProfile = DeepReadonly<
  Required<Omit<AgentProfileInput, 'maxDelegationDepth'>> & { maxDelegationDepth?: number }
>;

const stringList = { type: 'array', items: { type: 'string', minLength: 1 } } as const;

/** JSON Schema of an agent profile (draft-07). Unknown fields are rejected so typos surface. */
export const AGENT_PROFILE_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'AgentProfile',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'description', 'systemPrompt'],
  properties: {
    id: { type: 'string', pattern: AGENT_ID_PATTERN, maxLength: 64 },
    name: { type: 'string', minLength: 1 },
    description: { type: 'string', minLength: 1 },
    systemPrompt: { type: 'string', minLength: 1 },
    coreAbilities: stringList,
    abilities: stringList,
    exampleTasks: stringList,
    notForTasks: stringList,
    keywords: stringList,
    workflow: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'name'],
        properties: {
          id: { type: 'string', minLength: 1 },
          name: { type: 'string', minLength: 1 },
          kind: { type: 'string', minLength: 1 },
          dependsOn: stringList,
          parallel: { type: 'boolean' },
        },
      },
    },
    enabled: { type: 'boolean' },
    maxDelegationDepth: { type: 'integer', minimum: 0 },
  },
} as const;

let validateSchema: ValidateFunction | undefined;

export type ProfileErrorCode = 'AGENT.INVALID_PROFILE';

/**
 * INV-AGT-001: the only way to obtain an `AgentProfile`. Checks the schema, then
 * the workflow graph (unique step ids, known dependencies, no cycles). The
 * returned profile is a frozen copy: later changes to `input` cannot reach it.
 */
export function parseAgentProfile(input: unknown): Result<AgentProfile, ProfileErrorCode> {
  validateSchema ??= compileSchema(AGENT_PROFILE_SCHEMA);
  if (!validateSchema(input)) {
    const errors = formatAjvErrors(validateSchema.errors);
    return err('AGENT.INVALID_PROFILE', `invalid agent profile: ${errors.join('; ')}`, errors);
  }
  const p = input as AgentProfileInput;
  const workflow = (p.workflow ?? []).map(copyStep);
  const plan = planWorkflow(workflow);
  if (!plan.ok) {
    return err('AGENT.INVALID_PROFILE', `invalid agent profile '${p.id}': ${plan.message}`, [plan.message]);
  }
  const profile = {
    id: p.id,
    name: p.name,
    description: p.description,
    systemPrompt: p.systemPrompt,
    coreAbilities: [...(p.coreAbilities ?? [])],
    abilities: [...(p.abilities ?? [])],
    exampleTasks: [...(p.exampleTasks ?? [])],
    notForTasks: [...(p.notForTasks ?? [])],
    keywords: [...(p.keywords ?? [])],
    workflow,
    enabled: p.enabled ?? true,
    ...(p.maxDelegationDepth === undefined ? {} : { maxDelegationDepth: p.maxDelegationDepth }),
  };
  return ok(freezeDeep(profile));
}

function copyStep(s: WorkflowStep): WorkflowStep {
  return {
    id: s.id,
    name: s.name,
    ...(s.kind === undefined ? {} : { kind: s.kind }),
    ...(s.dependsOn === undefined ? {} : { dependsOn: [...s.dependsOn] }),
    ...(s.parallel === undefined ? {} : { parallel: s.parallel }),
  };
}

/** The delegation limit that applies while `profile` is delegating. */
export function maxDelegationDepthOf(profile: Pick<AgentProfile, 'maxDelegationDepth'>): number {
  return profile.maxDelegationDepth ?? DEFAULT_MAX_DELEGATION_DEPTH;
}
