import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { toAgentConfig, type AgentConfig } from '../domain/config/agent-config';
import { parseEnvFile } from '../domain/config/env-file';
import { expandPlaceholders, MissingVariableError } from '../domain/config/expand';
import { mergeLayers, type ConfigLayer } from '../domain/config/merge';

/** Where to look for configuration (§7 Layer Precedence). Paths are passed in so tests need no real $HOME. */
export interface ConfigDiscovery {
  /** `--config`: must exist when given. */
  readonly configPath?: string;
  readonly cwd: string;
  /** The prompt file, when the prompt came from one; its directory is a layer. */
  readonly promptPath?: string;
  readonly binaryDir?: string;
  readonly home?: string;
  /** Defaults to `/etc/ai-agent`. */
  readonly systemDir?: string;
}

export type LayerKind = 'config' | 'cwd' | 'prompt' | 'binary' | 'home' | 'system';

export interface LayerSource {
  readonly kind: LayerKind;
  readonly file: string;
  readonly required: boolean;
}

export const CONFIG_FILE = '.ai-agent.json';
export const ENV_FILE = '.ai-agent.env';

/** The candidate files, highest priority first, each file once (its highest position wins). */
export function layerSources(d: ConfigDiscovery): LayerSource[] {
  const candidates: LayerSource[] = [];
  if (d.configPath) candidates.push({ kind: 'config', file: path.resolve(d.cwd, d.configPath), required: true });
  candidates.push({ kind: 'cwd', file: path.resolve(d.cwd, CONFIG_FILE), required: false });
  if (d.promptPath) candidates.push({ kind: 'prompt', file: path.join(path.dirname(path.resolve(d.cwd, d.promptPath)), CONFIG_FILE), required: false });
  if (d.binaryDir) candidates.push({ kind: 'binary', file: path.join(d.binaryDir, CONFIG_FILE), required: false });
  if (d.home) candidates.push({ kind: 'home', file: path.join(d.home, '.ai-agent', 'ai-agent.json'), required: false });
  candidates.push({ kind: 'system', file: path.join(d.systemDir ?? '/etc/ai-agent', 'ai-agent.json'), required: false });
  const seen = new Set<string>();
  return candidates.filter((c) => !seen.has(c.file) && (seen.add(c.file), true));
}

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

export type LoadResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

/** Reads every existing layer and expands it with its own `.ai-agent.env`, then `processEnv`. */
export async function loadConfigLayers(d: ConfigDiscovery, processEnv: Readonly<Record<string, string | undefined>>): Promise<LoadResult<ConfigLayer[]>> {
  const layers: ConfigLayer[] = [];
  for (const source of layerSources(d)) {
    let text: string | undefined;
    let envText: string | undefined;
    try {
      text = await readIfExists(source.file);
      envText = text === undefined ? undefined : await readIfExists(path.join(path.dirname(source.file), ENV_FILE));
    } catch (e) {
      return { ok: false, error: `cannot read config ${source.file}: ${(e as Error).message}` };
    }
    if (text === undefined) {
      if (source.required) return { ok: false, error: `config file not found: ${source.file}` };
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      return { ok: false, error: `config ${source.file} is not valid JSON: ${(e as Error).message}` };
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ok: false, error: `config ${source.file} must hold a JSON object` };
    try {
      const config = expandPlaceholders(parsed, { origin: source.file, layerEnv: envText ? parseEnvFile(envText) : {}, processEnv }) as Record<string, unknown>;
      layers.push({ origin: source.file, config });
    } catch (e) {
      if (e instanceof MissingVariableError) return { ok: false, error: e.message };
      throw e;
    }
  }
  return { ok: true, value: layers };
}

/** Loads, merges and validates the configuration; every failure is a message for exit code 4. */
export async function loadAgentConfig(
  d: ConfigDiscovery,
  processEnv: Readonly<Record<string, string | undefined>>,
): Promise<LoadResult<{ config: AgentConfig; origins: string[] }>> {
  const layers = await loadConfigLayers(d, processEnv);
  if (!layers.ok) return layers;
  const shaped = toAgentConfig(mergeLayers(layers.value));
  if (!shaped.ok) return { ok: false, error: `invalid configuration: ${shaped.errors.join('; ')}` };
  return { ok: true, value: { config: shaped.config, origins: layers.value.map((l) => l.origin) } };
}
