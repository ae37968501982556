import type { AgentProfileInput } from './agent-profile';

export const STANDARD_AGENT_ID = 'standard';

/** INV-AGT-SEL-004: the fallback agent every registry starts with. */
export const STANDARD_AGENT_PROFILE: AgentProfileInput = {
  id: STANDARD_AGENT_ID,
  name: 'Standard',
  description: 'General-purpose agent used when no specialist matches the task.',
  systemPrompt: 'You are a careful general-purpose assistant. Work step by step and say when you are unsure.',
  enabled: true,
};
