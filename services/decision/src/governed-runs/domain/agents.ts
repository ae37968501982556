import { AgentProfile, AgentProfileInput, AgentRegistry } from '@runledger/agent-runtime';

/** Contract 001 §3: the v1 minimum set of governed agents. */
export const GOVERNED_AGENTS = ['ORCHESTRATOR', 'INTAKE_AGENT', 'INTERVIEW_AGENT', 'MAPPING_AGENT', 'GOVERNANCE_AGENT', 'EXPORT_AGENT'] as const;
export type GovernedAgentName = (typeof GOVERNED_AGENTS)[number];

export const LANES = {
  interviewCapture: 'TOOL_INTERVIEW_CAPTURE',
  intakeWrites: 'WRITE_INTAKE_ARTIFACTS',
  mappingWrites: 'WRITE_MAPPING_OUTPUTS',
  promote: 'PROMOTE_SHARED_KNOWLEDGE',
  export: 'EXPORT',
} as const;

/**
 * The lanes each agent works through (§4, §5). Checked at run start: an agent whose role lacks one of them is
 * denied before any step runs, instead of failing half-way at its first privileged action.
 */
export const AGENT_LANES: Readonly<Record<GovernedAgentName, readonly string[]>> = {
  ORCHESTRATOR: [],
  INTAKE_AGENT: [LANES.intakeWrites],
  INTERVIEW_AGENT: [LANES.interviewCapture, LANES.intakeWrites],
  MAPPING_AGENT: [LANES.mappingWrites],
  GOVERNANCE_AGENT: [LANES.promote],
  EXPORT_AGENT: [LANES.export],
};

/**
 * The lane the ORCHESTRATOR names on its artifact puts. It holds no lane (a system principal): the artifact
 * store admits it for its own case under this label, which no lane in the policy carries.
 */
export const ORCHESTRATION_LANE = 'ORCHESTRATION';

export function isGovernedAgent(name: string): name is GovernedAgentName {
  return (GOVERNED_AGENTS as readonly string[]).includes(name);
}

/** INV-AGT-002 id format: INTAKE_AGENT → intake-agent. */
export function profileIdOf(agent: GovernedAgentName): string {
  return agent.toLowerCase().replace(/_/g, '-');
}

const step = (id: string, name: string, kind: string, dependsOn?: string[]) => ({ id, name, kind, ...(dependsOn ? { dependsOn } : {}) });
/** A step of a parallel group (INV-PE-001): it runs beside its group's other independent steps. */
const parallel = (s: ReturnType<typeof step>) => ({ ...s, parallel: true });

/** How many steps of one run may run at once; steps outside parallel groups still run one by one (INV-AGT-003). */
export const AGENT_MAX_CONCURRENCY = 2;

export const FAILURE_STRATEGIES = ['failFast', 'continueOnError', 'rollback'] as const;
export type AgentFailureStrategy = (typeof FAILURE_STRATEGIES)[number];

/**
 * INV-PE-003: a request's `parameters.failure_strategy`, when it names one, is one of FAILURE_STRATEGIES: any other
 * value is refused at runs.start (§2.2 INVALID_INPUT naming the allowed values, no run), never run as the default
 * unseen. Contract 004 names the three and no fallback.
 */
export function failureStrategyProblem(parameters: Record<string, unknown>): string | undefined {
  if (!Object.hasOwn(parameters, 'failure_strategy') || (FAILURE_STRATEGIES as readonly unknown[]).includes(parameters['failure_strategy'])) return undefined;
  return `parameters.failure_strategy must be one of the following values: ${FAILURE_STRATEGIES.join(', ')} (or left out: failFast)`;
}

/**
 * INV-PE-003: the strategy a run follows, its `parameters.failure_strategy` (default failFast). runs.start refuses any
 * other value (failureStrategyProblem); a run recorded before it did, with another value, still runs under the default.
 */
export function failureStrategyOf(parameters: Record<string, unknown>): AgentFailureStrategy {
  const asked = parameters['failure_strategy'];
  return (FAILURE_STRATEGIES as readonly unknown[]).includes(asked) ? (asked as AgentFailureStrategy) : 'failFast';
}

/**
 * The six profiles. Steps run in array order (INV-AGT-003) except the marked parallel groups of independent steps
 * (INV-PE-001: up to AGENT_MAX_CONCURRENCY at once), and each completed step is checkpointed as a
 * StepCompleted event (INV-CP-001), so a resumed run restores outputs instead of repeating effects (INV-CP-002).
 * `kind` says what a step does: read (artifacts in), reason (pure or model-backed analysis), tool, write
 * (db_write child runs), publish (artifacts out), delegate (child agent runs), promote, export.
 */
export const AGENT_PROFILES: Readonly<Record<GovernedAgentName, AgentProfileInput>> = {
  ORCHESTRATOR: {
    id: 'orchestrator', name: 'ORCHESTRATOR', maxDelegationDepth: 5,
    description: 'Top-level workflow coordinator for a case request; starts and correlates child agent runs.',
    systemPrompt: 'Coordinate the intake, interview, mapping and export of one case. Never call tools or write domain data yourself.',
    keywords: ['case', 'workflow', 'orchestrate'],
    workflow: [
      step('intake', 'Run INTAKE_AGENT', 'delegate'),
      step('interview', 'Run INTERVIEW_AGENT', 'delegate', ['intake']),
      step('mapping', 'Run MAPPING_AGENT', 'delegate', ['interview']),
      step('export', 'Run EXPORT_AGENT when asked', 'delegate', ['mapping']),
      step('summary', 'Publish the workflow summary', 'publish', ['export']),
    ],
  },
  INTAKE_AGENT: {
    id: 'intake-agent', name: 'INTAKE_AGENT',
    description: 'Triage of the initial client submission: completeness, flags, accept / reject / needs-more-info.',
    systemPrompt: 'Assess the client intake form for completeness and routing. Summarise briefly for attorney review.',
    keywords: ['intake', 'triage', 'checklist'],
    workflow: [
      step('read', 'Read the client intake form', 'read'),
      step('assess', 'Assess completeness and routing', 'reason', ['read']),
      parallel(step('publish', 'Publish intake_summary and intake_checklist', 'publish', ['assess'])),
      parallel(step('persist', 'Upsert extracted entities', 'write', ['assess'])),
    ],
  },
  INTERVIEW_AGENT: {
    id: 'interview-agent', name: 'INTERVIEW_AGENT',
    description: 'Captures the client narrative through governed dictation/transcription tools and structured prompts.',
    systemPrompt: 'Walk the governed interview prompts, transcribe the session and draft structured interview notes.',
    keywords: ['interview', 'transcription', 'dictation'],
    workflow: [
      step('read', 'Read the session recording', 'read'),
      parallel(step('prompt', 'Fetch the governed prompts', 'tool', ['read'])),
      parallel(step('transcribe', 'Transcribe the recording', 'tool', ['read'])),
      step('status', 'Confirm the transcription', 'tool', ['transcribe']),
      step('notes', 'Draft interview notes', 'reason', ['transcribe', 'prompt']),
      step('publish', 'Publish transcript and interview_notes', 'publish', ['notes']),
      // persist records the published artifacts' ids: it depends on publish, not only on notes.
      step('persist', 'Append transcripts and notes, upsert entities', 'write', ['notes', 'publish']),
    ],
  },
  MAPPING_AGENT: {
    id: 'mapping-agent', name: 'MAPPING_AGENT',
    description: 'Maps facts and evidence to causes of action under a pinned COA taxonomy version.',
    systemPrompt: 'Extract facts from the sources, link each to its evidence, and map them to causes of action.',
    keywords: ['mapping', 'facts', 'evidence', 'cause of action'],
    workflow: [
      step('read', 'Read transcripts, notes and documents', 'read'),
      step('map', 'Map facts and evidence to causes of action', 'reason', ['read']),
      step('publish', 'Publish facts, evidence_map, coa_map and mapping_summary', 'publish', ['map']),
      step('persist', 'Append facts, evidence_map and coa_map', 'write', ['map', 'publish']),
    ],
  },
  GOVERNANCE_AGENT: {
    id: 'governance-agent', name: 'GOVERNANCE_AGENT',
    description: 'Promotion gatekeeper: promotes sanitised insights into the shared knowledge plane.',
    systemPrompt: 'Promote only sanitised insights covered by an approved promotion ticket.',
    keywords: ['promotion', 'shared knowledge', 'playbook'],
    workflow: [step('read', 'Read the promotion ticket and candidate', 'read'), step('promote', 'Promote through the promotion service', 'promote', ['read'])],
  },
  EXPORT_AGENT: {
    id: 'export-agent', name: 'EXPORT_AGENT',
    description: 'Export gatekeeper: bundles a case with manifest, hashes and receipt.',
    systemPrompt: 'Select the requested artifacts of the case and have the export service bundle them.',
    keywords: ['export', 'bundle', 'manifest'],
    workflow: [step('select', 'Select the artifacts to export', 'read'), step('bundle', 'Bundle through the export service', 'export', ['select'])],
  },
};

/** The registry of the six agents (INV-AGT-001/002). A profile failing validation is a programming error. */
export function createAgentRegistry(): AgentRegistry {
  const created = AgentRegistry.create(Object.values(AGENT_PROFILES));
  if (!created.ok) throw new Error(`governed agent profiles are invalid: ${created.message}`);
  return created.value;
}

export function profileOf(registry: AgentRegistry, agent: GovernedAgentName): AgentProfile | undefined {
  const profile = registry.get(profileIdOf(agent));
  return profile?.enabled ? profile : undefined;
}
