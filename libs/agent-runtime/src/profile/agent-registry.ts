import { err, ok, type Result } from '../shared/result';
import { parseAgentProfile, type AgentProfile } from './agent-profile';
import { STANDARD_AGENT_ID, STANDARD_AGENT_PROFILE } from './standard-agent';

export type RegistryErrorCode =
  | 'AGENT.INVALID_PROFILE'
  | 'AGENT.DUPLICATE_ID'
  | 'AGENT.NOT_FOUND'
  | 'AGENT.STANDARD_REQUIRED';

/**
 * In-memory agent catalogue. Creation and replacement are separate verbs
 * (INV-AGT-002) so that a typo in an id can never overwrite another agent.
 * Holds only validated, frozen profiles (INV-AGT-001).
 */
export class AgentRegistry {
  private readonly profiles = new Map<string, AgentProfile>();

  /**
   * Seeds the `standard` agent, then registers `initial` in order; a custom
   * `standard` in `initial` replaces the default one.
   */
  static create(initial: readonly unknown[] = []): Result<AgentRegistry, RegistryErrorCode> {
    const registry = new AgentRegistry();
    for (const input of initial) {
      const isStandard = (input as { id?: unknown } | null)?.id === STANDARD_AGENT_ID;
      const r = isStandard ? registry.update(input) : registry.register(input);
      if (!r.ok) return r;
    }
    return ok(registry);
  }

  constructor() {
    const standard = parseAgentProfile(STANDARD_AGENT_PROFILE);
    // The built-in profile is a constant; failing here is a programming error.
    if (!standard.ok) throw new Error(`built-in standard agent is invalid: ${standard.message}`);
    this.profiles.set(STANDARD_AGENT_ID, standard.value);
  }

  /** Adds a new agent; fails if the id is taken. */
  register(input: unknown): Result<AgentProfile, RegistryErrorCode> {
    const parsed = parseAgentProfile(input);
    if (!parsed.ok) return parsed;
    if (this.profiles.has(parsed.value.id)) {
      return err('AGENT.DUPLICATE_ID', `agent '${parsed.value.id}' is already registered; use update() to replace it`);
    }
    this.profiles.set(parsed.value.id, parsed.value);
    return parsed;
  }

  /** Replaces an existing agent; fails if the id is unknown. */
  update(input: unknown): Result<AgentProfile, RegistryErrorCode> {
    const parsed = parseAgentProfile(input);
    if (!parsed.ok) return parsed;
    if (!this.profiles.has(parsed.value.id)) {
      return err('AGENT.NOT_FOUND', `agent '${parsed.value.id}' is not registered; use register() to add it`);
    }
    if (parsed.value.id === STANDARD_AGENT_ID && !parsed.value.enabled) {
      return err('AGENT.STANDARD_REQUIRED', `the '${STANDARD_AGENT_ID}' agent is the selection fallback and must stay enabled`);
    }
    this.profiles.set(parsed.value.id, parsed.value);
    return ok(parsed.value);
  }

  get(id: string): AgentProfile | undefined {
    return this.profiles.get(id);
  }

  has(id: string): boolean {
    return this.profiles.has(id);
  }

  /** The always-present fallback agent. */
  standard(): AgentProfile {
    return this.profiles.get(STANDARD_AGENT_ID)!;
  }

  /** All agents sorted by id, so iteration order never depends on registration history. */
  list(): AgentProfile[] {
    return [...this.profiles.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}
