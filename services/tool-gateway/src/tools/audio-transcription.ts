import { openaiModule } from '@runledger/agent-session';
import { settingText, truncateChars } from '@runledger/kernel';
import type { TranscriptSegment } from '@runledger/contracts';

/** The OpenAI-compatible server audio recordings are transcribed by (TRANSCRIPTION_BASE_URL, …). */
export interface TranscriptionConfig {
  readonly baseURL: string;
  readonly apiKey: string;
  readonly model: string;
}

export function transcriptionConfigFromEnv(env: NodeJS.ProcessEnv = process.env): TranscriptionConfig | undefined {
  const baseURL = settingText('TRANSCRIPTION_BASE_URL', env);
  if (!baseURL) return undefined;
  return { baseURL, apiKey: settingText('TRANSCRIPTION_API_KEY', env) ?? '', model: settingText('TRANSCRIPTION_MODEL', env) };
}

const EXTENSIONS: Record<string, string> = { 'audio/mpeg': 'mp3', 'audio/mp3': 'mp3', 'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/webm': 'webm', 'audio/ogg': 'ogg', 'audio/mp4': 'm4a', 'audio/m4a': 'm4a', 'audio/flac': 'flac' };

/**
 * Transcribes audio bytes through the `openai` client's transcription endpoint (verbose_json, so each segment
 * keeps the times the model measured). The API does not tell speakers apart: every segment's speaker is
 * `speaker`. A server without segments gives one segment of the whole text.
 */
export async function transcribeAudio(config: TranscriptionConfig, bytes: Buffer, mediaType: string, opts: { language?: string; signal?: AbortSignal; maxSegments: number; maxSegmentChars: number }): Promise<TranscriptSegment[]> {
  const type = mediaType.split(';')[0]!.trim();
  const { default: OpenAI, toFile } = openaiModule();
  const client = new OpenAI({ apiKey: config.apiKey, baseURL: config.baseURL, maxRetries: 0 });
  const file = await toFile(bytes, `recording.${EXTENSIONS[type] ?? 'bin'}`, { type });
  const res = await client.audio.transcriptions.create(
    { file, model: config.model, response_format: 'verbose_json', ...(opts.language ? { language: opts.language } : {}) },
    opts.signal ? { signal: opts.signal } : {},
  );
  const parts = res.segments?.length ? res.segments : [{ start: 0, end: res.duration ?? 0, text: res.text }];
  return parts
    .map((s) => ({ start: s.start, end: s.end, text: truncateChars(s.text.trim().replace(/\s+/g, ' '), opts.maxSegmentChars) }))
    .filter((s) => s.text !== '')
    .slice(0, opts.maxSegments)
    .map((s, index) => ({ index, speaker: 'speaker', start_ms: Math.round(s.start * 1000), end_ms: Math.round(s.end * 1000), text: s.text }));
}
