import { clip, mentions, sentences } from './text';
import type { TranscriptSegment } from '@runledger/contracts';

/** One timed speaker turn, as transcription.run returns it (the wire contract's type). */
export type { TranscriptSegment };

export interface InterviewPrompt {
  prompt_id: string;
  topic: string;
  text: string;
}

export interface InterviewNote {
  topic: string;
  prompt_id: string | null;
  summary: string;
  segment_indexes: number[];
}

export interface InterviewNotes {
  notes: InterviewNote[];
  client_turns: number;
  entities: Array<{ entity_type: 'person' | 'organization'; name: string; role: 'mentioned' }>;
}

/** Speakers whose turns are questions, not the client's account. */
const INTERVIEWER_SPEAKERS = new Set(['interviewer', 'attorney', 'lawyer', 'paralegal', 'agent']);

export const isInterviewerTurn = (speaker: string): boolean => INTERVIEWER_SPEAKERS.has(speaker);

/** Topic cues, checked in this order; a sentence goes to the first topic it matches, else to the narrative. */
const TOPIC_CUES: ReadonlyArray<[string, readonly string[]]> = [
  ['timeline', ['yesterday', 'last week', 'last month', 'january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december', 'on monday', 'first', 'then', 'after that', 'later']],
  ['harm', ['lost', 'loss', 'injured', 'injury', 'damage', 'damaged', 'unpaid', 'owed', 'cost', 'medical', 'hospital']],
  ['evidence', ['email', 'emails', 'text message', 'messages', 'contract', 'invoice', 'receipt', 'photo', 'photos', 'witness', 'witnesses', 'document', 'documents', 'recording']],
  ['parties', ['manager', 'boss', 'employer', 'landlord', 'company', 'supervisor', 'owner', 'driver', 'he', 'she', 'they']],
];
const NOTE_MAX = 800;
const MAX_ENTITIES = 20;

const PROPER_NAME = /\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)+(?:\s+(?:Inc|LLC|Ltd|Corp)\.?)?)\b/g;
const ORG_SUFFIX = /\b(Inc|LLC|Ltd|Corp)\.?$/;

export function topicOf(sentence: string): string {
  for (const [topic, cues] of TOPIC_CUES) if (cues.some((cue) => mentions(sentence, cue))) return topic;
  return 'narrative';
}

/**
 * Structured interview notes (§4.3) from the transcript: the client's sentences grouped by interview topic,
 * each note linked to the prompt of its topic and to the segments it came from, plus the names mentioned.
 * Interviewer turns are questions and are left out.
 */
export function draftInterviewNotes(segments: readonly TranscriptSegment[], prompts: readonly InterviewPrompt[]): InterviewNotes {
  const byTopic = new Map<string, { parts: string[]; segments: Set<number> }>();
  const names = new Map<string, 'person' | 'organization'>();
  let clientTurns = 0;
  for (const segment of segments) {
    if (isInterviewerTurn(segment.speaker)) continue;
    clientTurns++;
    for (const sentence of sentences(segment.text)) {
      const topic = topicOf(sentence);
      const entry = byTopic.get(topic) ?? { parts: [], segments: new Set<number>() };
      entry.parts.push(sentence);
      entry.segments.add(segment.index);
      byTopic.set(topic, entry);
    }
    for (const match of segment.text.matchAll(PROPER_NAME)) {
      if (names.size < MAX_ENTITIES) names.set(match[1], ORG_SUFFIX.test(match[1]) ? 'organization' : 'person');
    }
  }
  const order = ['narrative', ...TOPIC_CUES.map(([t]) => t)];
  const notes = order
    .filter((topic) => byTopic.has(topic))
    .map((topic) => {
      const entry = byTopic.get(topic)!;
      return {
        topic,
        prompt_id: prompts.find((p) => p.topic === topic)?.prompt_id ?? null,
        summary: clip(entry.parts.join(' '), NOTE_MAX),
        segment_indexes: [...entry.segments].sort((a, b) => a - b),
      };
    });
  const entities = [...names].map(([name, entity_type]) => ({ entity_type, name, role: 'mentioned' as const }));
  return { notes, client_turns: clientTurns, entities };
}
