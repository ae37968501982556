import type * as OpenAiModule from 'openai';

/**
 * The `openai` client, loaded on first use: it is ~10 MiB resident, and most services that can call a model
 * (classification with an LLM configured, agent sessions, transcription) may never do so in a process's life.
 */
export function openaiModule(): typeof OpenAiModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when a model is called
  return require('openai') as typeof OpenAiModule;
}
