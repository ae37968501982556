import type OpenAI from 'openai';
import { openaiModule } from '@runledger/agent-session';
import { coreAbilityTokens, preparePrompt, selectAgents } from '@runledger/agent-runtime';
import { AppError, sha256Hex } from '@runledger/kernel';
import { fieldDetail } from '@runledger/messaging';
import type { SessionGateway } from '../../sessions/app/session.gateway';
import type { AgentSpec } from '../domain/campaign-types';
import { scriptedProposal, type ProposalAgent, type ProposalAnswer, type ProposalRequest, type SpecProblem } from '../app/proposal-agent';
import { CAMPAIGN_ABILITIES, campaignRegistry } from './campaign-profiles';
import { proposalPrompt } from './proposal-prompt';
import { sessionProposal } from './session-proposal-agent';

const DEFAULT_TOKEN_LIMIT = 800;

export interface OpenAiEndpoint {
  baseURL?: string;
  apiKey?: string;
  timeoutMs: number;
  /** How long one proposal session may take (a whole session, not one model call). */
  sessionTimeoutMs: number;
}

/**
 * Serves the proposal port: scripted campaigns from their recorded script, session campaigns through
 * an agent session (in process), model campaigns through the `openai` client. For a model, the profile is the named one or the one contract-004 selection picks for the current
 * task (deterministic, fallback `standard`); abilities are injected into the system prompt before the call
 * (core first, within the token budget). Everything that shaped the call is returned for the log.
 */
export class CampaignProposalAgent implements ProposalAgent {
  private readonly registry = campaignRegistry();
  private client?: OpenAI;

  constructor(private readonly endpoint: OpenAiEndpoint, private readonly sessions: Pick<SessionGateway, 'startOwn' | 'hasProfile'>) {}

  async propose(spec: AgentSpec, request: ProposalRequest): Promise<ProposalAnswer> {
    if (spec.kind === 'scripted') return scriptedProposal(spec.proposals, request.proposals_asked);
    if (spec.kind === 'session') return sessionProposal(this.sessions, spec, request, this.endpoint.sessionTimeoutMs);
    const task = request.snapshot.current_task?.description ?? request.snapshot.pending_tasks[0]?.description ?? request.snapshot.campaign.name;
    const selection = spec.profile ? null : selectAgents(this.registry, task)[0]!;
    const profileId = spec.profile ?? selection!.agentId;
    const profile = this.registry.get(profileId);
    // A profile the campaign named (it existed at create); a selected one always exists.
    if (!profile) throw new AppError('REQUEST.INVALID', `No agent profile ${profileId}.`, [fieldDetail('agent.profile', `No agent profile ${profileId}.`)]);
    const prompt = preparePrompt({
      profile, abilities: CAMPAIGN_ABILITIES, tokenLimit: spec.token_limit ?? DEFAULT_TOKEN_LIMIT,
      task: proposalPrompt(request),
    });
    if (!prompt.ok) throw new AppError('INTERNAL', prompt.message);
    const messages = prompt.messages.map((m) => ({ role: m.role, content: m.content }));
    let completion: OpenAI.Chat.Completions.ChatCompletion;
    try {
      completion = await this.openai().chat.completions.create({ model: spec.model, messages, response_format: { type: 'json_object' } });
    } catch {
      throw new AppError('DEPENDENCY.DOWN', 'The model provider did not answer.');
    }
    const content = completion.choices[0]?.message?.content ?? '';
    return {
      raw: parseJson(content),
      info: {
        kind: 'llm', model: spec.model, profile_id: profileId,
        ...(selection ? { selection: { agent_id: selection.agentId, confidence: selection.confidence, fallback: selection.fallback, reasons: [...selection.reasons] } } : {}),
        abilities: { included: [...prompt.abilities.included], omitted: [...prompt.abilities.omitted], truncated: prompt.abilities.truncated, tokens_used: prompt.abilities.tokensUsed },
        system_prompt_sha256: sha256Hex(messages[0]!.content),
        prompt_sha256: sha256Hex(JSON.stringify(messages)),
        response_id: completion.id,
        ...(completion.usage ? { usage: { prompt_tokens: completion.usage.prompt_tokens, completion_tokens: completion.usage.completion_tokens } } : {}),
      },
    };
  }

  /**
   * Contract 004: core abilities cannot be filtered out and injection must not exceed the limit, so a token_limit
   * below the core abilities of a profile the campaign can run as (the named one, else any selection may pick)
   * could never make a prompt.
   */
  async specProblem(spec: AgentSpec): Promise<SpecProblem | null> {
    // A session agent the catalog does not have: refused as an unknown llm profile is.
    if (spec.kind === 'session') return (await this.sessions.hasProfile(spec.agent, spec.version)) ? null : { path: 'agent.agent', problem: `No agent profile ${spec.agent}${spec.version ? ` version ${spec.version}` : ''}.` };
    if (spec.kind !== 'llm') return null;
    const named = spec.profile === undefined ? undefined : this.registry.get(spec.profile);
    if (spec.profile !== undefined && !named) return { path: 'agent.profile', problem: `No agent profile ${spec.profile}.` };
    const limit = spec.token_limit ?? DEFAULT_TOKEN_LIMIT;
    for (const profile of named ? [named] : this.registry.list()) {
      const core = coreAbilityTokens(profile, CAMPAIGN_ABILITIES);
      if (!core.ok) return { path: named ? 'agent.profile' : 'agent', problem: core.message };
      if (core.tokens > limit) {
        // The limit given, or the default one when the spec names none: the field to set either way.
        return { path: 'agent.token_limit', problem: `token_limit ${limit} is below the ${core.tokens} tokens the core abilities of profile ${profile.id} need (core abilities are never left out).` };
      }
    }
    return null;
  }

  private openai(): OpenAI {
    this.client ??= new (openaiModule().default)({ apiKey: this.endpoint.apiKey ?? 'unset', baseURL: this.endpoint.baseURL, timeout: this.endpoint.timeoutMs, maxRetries: 1 });
    return this.client;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
