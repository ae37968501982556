import type { AgentRunSpec } from './domain/run-spec';

/** Inbox event type of a governed agent run request (the task assistant's is AgentRequested). */
export const AGENT_RUN_REQUESTED = 'AgentRunRequested';

/** The command queued in the decision inbox: one §2.1 request with every pin resolved. */
export interface AgentRunRequested {
  spec: AgentRunSpec;
}

export const AGENT_RUN_LIMITS = Symbol('AGENT_RUN_LIMITS');
export const AGENT_RUN_REPLY_TIMEOUT_MS = Symbol('AGENT_RUN_REPLY_TIMEOUT_MS');
