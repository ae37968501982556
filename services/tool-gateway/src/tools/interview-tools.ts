import { ArtifactGetResult, SUBJECTS, TranscriptionResult, TranscriptSegment } from '@runledger/contracts';
import type { ToolDefinition } from '@runledger/agent-runtime';
import { sha256Hex } from '@runledger/governance';
import { AppError, artifactText, deterministicUuid, truncateChars } from '@runledger/kernel';
import { TRANSIENT_CODES } from '@runledger/messaging';
import { childScopeOf, RETRY } from '@runledger/runs';
import { transcribeAudio, transcriptionConfigFromEnv } from './audio-transcription';
import { currentInvocation } from './invocation-context';

/**
 * The interview-capture tools of lane TOOL_INTERVIEW_CAPTURE (contract 001 §4.3), with a working local
 * implementation: no speech engine is needed because a "recording" is a text/plain or JSON artifact of
 * utterances, which a deterministic transcriber normalises and segments into timed speaker turns.
 * The same input always gives the same transcript, so a re-run after a crash changes nothing.
 */

const id = { type: 'string', minLength: 1, maxLength: 128 } as const;
const scoped = { case_id: id, client_session_id: id } as const;

/** Timing model of the local transcriber (no audio clock exists): 150 words a minute, a pause between turns. */
const MS_PER_WORD = 400;
const TURN_GAP_MS = 500;
const MAX_SEGMENTS = 500;
const MAX_SEGMENT_CHARS = 4_000;
const MAX_TRANSCRIPT_CHARS = 60_000;


interface Utterance {
  speaker: string;
  text: string;
  offset_ms?: number;
}

/** The governed prompt pack (v1) that interview.prompt.next walks through, in order. */
export const INTERVIEW_PROMPTS: ReadonlyArray<{ prompt_id: string; topic: string; text: string }> = [
  { prompt_id: 'p1-narrative', topic: 'narrative', text: 'In your own words, what happened?' },
  { prompt_id: 'p2-timeline', topic: 'timeline', text: 'When did it happen, and what happened first, next and last?' },
  { prompt_id: 'p3-parties', topic: 'parties', text: 'Who was involved, and what did each of them do?' },
  { prompt_id: 'p4-harm', topic: 'harm', text: 'What harm or loss did you suffer because of it?' },
  { prompt_id: 'p5-evidence', topic: 'evidence', text: 'What documents, messages or witnesses can show what happened?' },
];

// Control characters become spaces (then collapse): a recording's bytes never reach a transcript raw.
const clean = (text: string): string =>
  Array.from(text.normalize('NFC'), (ch) => (ch.charCodeAt(0) < 32 || ch.charCodeAt(0) === 127 ? ' ' : ch)).join('').replace(/\s+/g, ' ').trim();

const speakerLabel = (raw: string): string => clean(raw).toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '') || 'speaker';

/** `Client: I was fired.` starts a turn; an unlabelled line continues the previous speaker's turn. */
function utterancesFromText(text: string): Utterance[] {
  const out: Utterance[] = [];
  for (const line of text.split(/\r?\n/)) {
    const labelled = /^\s*([A-Za-z][A-Za-z0-9 _-]{0,31}):\s*(.*)$/.exec(line);
    if (labelled) out.push({ speaker: speakerLabel(labelled[1]), text: labelled[2] });
    else if (line.trim() && out.length) out[out.length - 1].text += ` ${line}`;
    else if (line.trim()) out.push({ speaker: 'speaker_1', text: line });
  }
  return out;
}

function utterancesFromJson(value: unknown): Utterance[] {
  const list = Array.isArray(value) ? value : (value as { utterances?: unknown })?.utterances;
  if (!Array.isArray(list)) throw unreadable('a JSON recording is an array of utterances or {utterances: [...]}');
  return list.map((u) => {
    const { speaker, text, offset_ms } = (u ?? {}) as Record<string, unknown>;
    if (typeof text !== 'string') throw unreadable('every utterance needs a text');
    return { speaker: speakerLabel(typeof speaker === 'string' ? speaker : 'speaker_1'), text, ...(typeof offset_ms === 'number' && offset_ms >= 0 ? { offset_ms } : {}) };
  });
}

/** Normalises utterances, merges consecutive ones of one speaker, and times each turn. */
export function transcribe(utterances: readonly Utterance[]): TranscriptSegment[] {
  const turns: Utterance[] = [];
  for (const u of utterances) {
    const text = clean(u.text);
    if (!text) continue;
    const last = turns[turns.length - 1];
    if (last && last.speaker === u.speaker && u.offset_ms === undefined) last.text = `${last.text} ${text}`;
    else turns.push({ ...u, text });
  }
  const segments: TranscriptSegment[] = [];
  let clock = 0;
  for (const turn of turns.slice(0, MAX_SEGMENTS)) {
    const start = Math.max(clock, turn.offset_ms ?? clock);
    const text = truncateChars(turn.text, MAX_SEGMENT_CHARS);
    const end = start + text.split(' ').length * MS_PER_WORD;
    segments.push({ index: segments.length, speaker: turn.speaker, start_ms: start, end_ms: end, text });
    clock = end + TURN_GAP_MS;
  }
  return segments;
}

/**
 * A recording that is not what its media type says stays so however often it is read: not retryable, and the caller
 * gets the code's words (what was wrong stays in tool-gateway's 'tool failed' log, never the recording's content).
 */
function unreadable(detail: string): AppError {
  return new AppError('ARTIFACT.UNREADABLE', `recording unreadable: ${detail}`);
}

export function parseRecording(content: string, mediaType: string): Utterance[] {
  const type = mediaType.split(';')[0].trim();
  if (type === 'application/json') {
    let value: unknown;
    try {
      value = JSON.parse(content);
    } catch {
      // Not the parser's message: it quotes the recording (an interview's words) into the service log.
      throw unreadable('not JSON');
    }
    return utterancesFromJson(value);
  }
  if (type.startsWith('text/')) return utterancesFromText(content);
  throw unreadable(`recordings of media type ${type} cannot be transcribed locally`);
}

/**
 * Audio (`audio/*`) goes to the configured OpenAI-compatible transcription endpoint; a text recording
 * (`text/*`: `Speaker: words` lines) or JSON utterances are split into speaker turns locally, with timings
 * estimated from word counts (see README "Transcription").
 */
async function segmentsOf(source: { content: string; bytes: Buffer; media_type: string }, language?: string): Promise<TranscriptSegment[]> {
  if (!source.media_type.startsWith('audio/')) return transcribe(parseRecording(source.content, source.media_type));
  const config = transcriptionConfigFromEnv();
  // A missing setting does not heal by retrying: not retryable, and the caller gets the code's words (the setting's
  // name stays in our log with the tool's message).
  if (!config) throw new AppError('TRANSCRIPTION.NOT_CONFIGURED', 'audio recordings need a transcription server (TRANSCRIPTION_BASE_URL is unset)');
  const signal = currentInvocation().signal;
  return transcribeAudio(config, source.bytes, source.media_type, { ...(language ? { language } : {}), ...(signal ? { signal } : {}), maxSegments: MAX_SEGMENTS, maxSegmentChars: MAX_SEGMENT_CHARS });
}

/**
 * Reads an artifact of the caller's case through db-write (which refuses another case's artifact) and checks
 * the bytes are the ones the caller referenced: the id alone names whatever is stored under it, the sha256 the
 * exact recording the run was given.
 */
async function readArtifact(artifactId: string, expectedSha256: string): Promise<{ content: string; bytes: Buffer; media_type: string; sha256: string }> {
  const got = await getArtifact(artifactId);
  const bytes = Buffer.from(got.content_base64, 'base64');
  if (got.artifact_ref.sha256 !== expectedSha256 || sha256Hex(bytes) !== expectedSha256) {
    throw new AppError('ARTIFACT.HASH_MISMATCH', 'The recording does not match the sha256 it was referenced with.');
  }
  return { content: artifactText(bytes), bytes, media_type: got.artifact_ref.media_type, sha256: expectedSha256 };
}

async function getArtifact(artifactId: string): Promise<ArtifactGetResult> {
  const ctx = currentInvocation();
  const request = { artifact_id: artifactId, governance: childScopeOf(ctx.governance, ctx.child_run_id) };
  try {
    return await ctx.bus.requestIdempotent<ArtifactGetResult>(SUBJECTS.artifactsGet, request, { timeoutMs: 10_000, retryDelayMs: RETRY.chokePoint, signal: ctx.signal });
  } catch (err) {
    // Still down: a plain error is a (retryable) execution failure at the gateway; the dependency's own code
    // would be recorded as a permanent tool failure. A refusal (another case, not found) keeps its code.
    throw err instanceof AppError && TRANSIENT_CODES.has(err.code) ? new Error(`the artifact store did not answer: ${err.message}`) : err;
  }
}

interface RecordedRun {
  status: string;
  run?: { run_kind?: string; case_id?: string; parameters?: { tool_name?: string } };
  result?: { output?: { client_session_id?: string; segments?: unknown[]; word_count?: number } };
}

export const INTERVIEW_TOOLS: Record<string, ToolDefinition> = {
  'transcription.run': {
    name: 'transcription.run',
    description: 'Transcribe a recorded interview (audio through the configured transcription server, a text or JSON recording of utterances, or inline text) into timed segments.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['case_id', 'client_session_id'],
      // A recording is named by id and sha256 together, so the transcript is of the bytes the caller referenced.
      anyOf: [{ required: ['audio_artifact_id', 'audio_sha256'] }, { required: ['text'] }],
      properties: {
        ...scoped, audio_artifact_id: id, audio_sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
        text: { type: 'string', minLength: 1, maxLength: MAX_TRANSCRIPT_CHARS }, language: { type: 'string', pattern: '^[a-z]{2}$' },
      },
    },
    execute: async (input) => {
      const p = input as { case_id: string; client_session_id: string; audio_artifact_id?: string; audio_sha256?: string; text?: string; language?: string };
      const source = p.audio_artifact_id ? await readArtifact(p.audio_artifact_id, p.audio_sha256!) : { content: p.text!, bytes: Buffer.from(p.text!), media_type: 'text/plain', sha256: null };
      const segments = await segmentsOf(source, p.language);
      const text = truncateChars(segments.map((s) => `${s.speaker}: ${s.text}`).join('\n'), MAX_TRANSCRIPT_CHARS);
      const result: TranscriptionResult = {
        // The tool_gateway child run *is* the transcription job: its id finds the job's recorded state in the log.
        transcription_id: currentInvocation().child_run_id,
        status: 'completed',
        case_id: p.case_id,
        client_session_id: p.client_session_id,
        language: p.language ?? 'en',
        source_sha256: source.sha256,
        segments,
        text,
        word_count: segments.reduce((n, s) => n + s.text.split(' ').length, 0),
        duration_ms: segments.length ? segments[segments.length - 1].end_ms : 0,
      };
      return result;
    },
  },
  'transcription.status': {
    name: 'transcription.status',
    description: 'The state of a transcription started by transcription.run in the same case and session.',
    inputSchema: { type: 'object', additionalProperties: false, required: ['case_id', 'client_session_id', 'transcription_id'], properties: { ...scoped, transcription_id: { type: 'string', format: 'uuid' } } },
    execute: async (input) => {
      const p = input as { case_id: string; client_session_id: string; transcription_id: string };
      const ctx = currentInvocation();
      let run: RecordedRun;
      try {
        run = await ctx.bus.request<RecordedRun>(SUBJECTS.runsGet, { run_id: p.transcription_id }, { timeoutMs: 10_000 });
      } catch (err) {
        if ((err as { code?: string }).code === 'RUN.NOT_FOUND') return { transcription_id: p.transcription_id, state: 'not_found' };
        throw err;
      }
      const output = run.result?.output;
      // Another case's or session's job is reported as absent: its existence is not disclosed.
      const mine = run.run?.run_kind === 'tool_gateway' && run.run.parameters?.tool_name === 'transcription.run' && run.run.case_id === p.case_id
        && (run.status !== 'completed' || output?.client_session_id === p.client_session_id);
      if (!mine) return { transcription_id: p.transcription_id, state: 'not_found' };
      const state = run.status === 'completed' ? 'completed' : run.status === 'failed' || run.status === 'denied' ? 'failed' : 'processing';
      return { transcription_id: p.transcription_id, state, ...(state === 'completed' ? { segment_count: output?.segments?.length ?? 0, word_count: output?.word_count ?? 0 } : {}) };
    },
  },
  'interview.prompt.next': {
    name: 'interview.prompt.next',
    description: 'The next governed interview prompt, given the prompts already answered in this session.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['case_id', 'client_session_id'],
      properties: { ...scoped, answered_prompt_ids: { type: 'array', maxItems: 50, items: id } },
    },
    execute: (input) => {
      const answered = new Set((input as { answered_prompt_ids?: string[] }).answered_prompt_ids ?? []);
      const open = INTERVIEW_PROMPTS.filter((p) => !answered.has(p.prompt_id));
      return { prompt_pack: 'interview-v1', done: open.length === 0, remaining: open.length, ...(open[0] ? { prompt: open[0] } : {}), prompts: open };
    },
  },
  'dictation.start': {
    name: 'dictation.start',
    description: 'Open the dictation channel of a client session.',
    inputSchema: { type: 'object', additionalProperties: false, required: ['case_id', 'client_session_id'], properties: scoped },
    execute: (input) => {
      const p = input as { case_id: string; client_session_id: string };
      // One dictation per session: a repeated start is the same dictation, not a second one.
      return { dictation_id: deterministicUuid('dictation', p.case_id, p.client_session_id), state: 'recording', client_session_id: p.client_session_id };
    },
  },
  'dictation.stop': {
    name: 'dictation.stop',
    description: 'Close the dictation channel of a client session.',
    inputSchema: { type: 'object', additionalProperties: false, required: ['case_id', 'client_session_id', 'dictation_id'], properties: { ...scoped, dictation_id: { type: 'string', format: 'uuid' } } },
    execute: (input) => {
      const p = input as { case_id: string; client_session_id: string; dictation_id: string };
      const known = p.dictation_id === deterministicUuid('dictation', p.case_id, p.client_session_id);
      return { dictation_id: p.dictation_id, state: known ? 'stopped' : 'not_found' };
    },
  },
};
