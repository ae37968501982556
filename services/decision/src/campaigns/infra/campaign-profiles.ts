import { ACTION_TYPES, AgentRegistry, type Ability, type AgentProfileInput } from '@runledger/agent-runtime';

/**
 * The agent profiles a campaign's model can run as (contract 004). A campaign that names no profile gets one
 * chosen per cycle by selection over the current task (fallback `standard`); the chosen profile's core
 * abilities are injected first, then task-matched ones within the token budget.
 */
export const CAMPAIGN_ABILITIES: readonly Ability[] = [
  {
    id: 'proposal-contract',
    content: `Answer with exactly one JSON object: a proposal whose action_type is one of ${ACTION_TYPES.join(', ')}, following contract 003. You hold no memory between cycles: decide only from the state snapshot.`,
  },
  { id: 'linkedin-etiquette', content: 'Messages stay under 300 characters, name something specific from the lead\'s profile and never pressure.', keywords: ['message', 'connection', 'follow', 'outreach'] },
  { id: 'lead-scoring', content: 'Prioritise leads by weight score; a lead without job title or company needs a question to the operator first.', keywords: ['lead', 'leads', 'prioritize', 'score', 'research'] },
  { id: 'browser-use', content: 'Use browser_navigate before browser_click or browser_type; selectors are CSS selectors.', keywords: ['browse', 'profile', 'page', 'visit', 'navigate'] },
];

export const CAMPAIGN_PROFILES: readonly AgentProfileInput[] = [
  {
    id: 'outreach-writer',
    name: 'Outreach writer',
    description: 'Drafts connection requests and follow-ups for one lead.',
    systemPrompt: 'You write short, specific outreach messages and propose them for approval.',
    coreAbilities: ['proposal-contract'],
    abilities: ['linkedin-etiquette'],
    keywords: ['message', 'connection', 'follow-up', 'outreach', 'write'],
    exampleTasks: ['Send connection request to lead', 'Follow up on connection request'],
    notForTasks: ['prioritize leads'],
  },
  {
    id: 'lead-researcher',
    name: 'Lead researcher',
    description: 'Researches and prioritises leads, visiting their profiles.',
    systemPrompt: 'You research leads and keep the campaign focused on the best ones.',
    coreAbilities: ['proposal-contract'],
    abilities: ['lead-scoring', 'browser-use'],
    keywords: ['lead', 'leads', 'research', 'prioritize', 'profile', 'visit'],
    exampleTasks: ['Prioritize leads', 'Visit the profile of the current lead'],
  },
  {
    id: 'standard',
    name: 'Standard',
    description: 'General-purpose campaign agent used when no specialist matches the task.',
    systemPrompt: 'You are a careful campaign assistant. Propose one action at a time.',
    coreAbilities: ['proposal-contract'],
    abilities: ['linkedin-etiquette', 'lead-scoring', 'browser-use'],
  },
];

export function campaignRegistry(): AgentRegistry {
  const created = AgentRegistry.create(CAMPAIGN_PROFILES);
  if (!created.ok) throw new Error(`campaign profiles are invalid: ${created.message}`);
  return created.value;
}
