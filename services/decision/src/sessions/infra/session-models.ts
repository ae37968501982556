import { readFileSync } from 'node:fs';
import { expandPlaceholders, modelsFromConfig, routeModels, systemClock, toAgentConfig, type AgentConfig, type Model } from '@runledger/agent-session';
import { settingText } from '@runledger/kernel';

export const SESSION_MODELS = Symbol('SESSION_MODELS');

/** The providers sessions may call and one Model routing to them. */
export interface SessionModels {
  readonly config: AgentConfig;
  readonly model: Model;
}

/**
 * RL_AGENT_CONFIG names a configuration file in the `runledger agent` format (providers with baseUrl, apiKey,
 * `${VAR}` placeholders from the environment); profiles name `provider/model` targets from it. Without it,
 * no provider is configured and sessions end with a configuration error.
 */
export function sessionModelsFromEnv(env: NodeJS.ProcessEnv = process.env): SessionModels {
  const file = settingText('RL_AGENT_CONFIG', env);
  const raw = file ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
  const expanded = expandPlaceholders(raw, { origin: file ?? 'environment', layerEnv: {}, processEnv: env }) as Record<string, unknown>;
  const shaped = toAgentConfig(expanded);
  if (!shaped.ok) throw new Error(`RL_AGENT_CONFIG ${file}: ${shaped.errors.join('; ')}`);
  const models = modelsFromConfig(shaped.config, systemClock);
  if (!models.ok) throw new Error(`RL_AGENT_CONFIG ${file}: ${models.errors.join('; ')}`);
  return { config: shaped.config, model: routeModels(models.models) };
}
