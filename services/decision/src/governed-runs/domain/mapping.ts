import { deterministicUuid } from '@runledger/kernel';
import { invalidInput } from './errors';
import { clip, mentions, sentences } from './text';

export interface CauseOfAction {
  coa_id: string;
  label: string;
  /** Cue words and phrases; a fact mentioning one supports the cause. */
  keywords: readonly string[];
}

/**
 * COA taxonomy snapshots, keyed by version (§4.4 "COA taxonomy snapshot or version pin"). Versions are
 * immutable: a change is a new key, so a run pinned to a version maps the same way on every replay.
 */
export const COA_TAXONOMIES: Readonly<Record<string, readonly CauseOfAction[]>> = {
  'coa-2026.1': [
    { coa_id: 'BREACH_OF_CONTRACT', label: 'Breach of contract', keywords: ['contract', 'agreement', 'breach', 'breached', 'invoice', 'unpaid', 'failed to pay', 'did not pay', 'owed'] },
    { coa_id: 'WRONGFUL_TERMINATION', label: 'Wrongful termination', keywords: ['fired', 'terminated', 'dismissed', 'let go', 'retaliation', 'laid off'] },
    { coa_id: 'NEGLIGENCE', label: 'Negligence', keywords: ['negligent', 'careless', 'accident', 'injured', 'injury', 'unsafe', 'hazard'] },
    { coa_id: 'FRAUD', label: 'Fraud / misrepresentation', keywords: ['lied', 'misrepresented', 'false', 'fake', 'deceived', 'fraud', 'promised'] },
    { coa_id: 'DEFAMATION', label: 'Defamation', keywords: ['defamed', 'slander', 'libel', 'rumor', 'rumour', 'posted', 'reputation'] },
  ],
};
export const DEFAULT_COA_VERSION = 'coa-2026.1';

const MIN_FACT_WORDS = 4;
const MAX_FACTS = 200;
const FACT_MAX_CHARS = 500;

/** One text source: a transcript segment, a note or a document, with where it sits in its artifact. */
export interface MappingSource {
  artifact_id: string;
  kind: string;
  locator: string;
  text: string;
}

export interface Fact {
  fact_id: string;
  text: string;
  source_artifact_id: string;
  locator: string;
}

export interface MappingResult {
  coa_version: string;
  facts: Fact[];
  evidence_map: Array<{ fact_id: string; artifact_id: string; kind: string; locator: string }>;
  coa_map: Array<{ coa_id: string; label: string; fact_ids: string[]; matched_keywords: string[]; strength: 'none' | 'weak' | 'moderate' | 'strong' }>;
  summary: string;
}

export function taxonomyOf(version: string): readonly CauseOfAction[] {
  const taxonomy = Object.hasOwn(COA_TAXONOMIES, version) ? COA_TAXONOMIES[version] : undefined;
  if (!taxonomy) throw invalidInput(`Unknown COA taxonomy version ${version.slice(0, 64)}; known: ${Object.keys(COA_TAXONOMIES).join(', ')}.`);
  return taxonomy;
}

/**
 * Deterministic mapping (§4.4): every sentence of at least four words is a fact, linked to the artifact and
 * place it came from (evidence map); each cause of action collects the facts mentioning one of its cues.
 * The same sources and version always give the same ids and maps.
 */
export function mapCausesOfAction(sources: readonly MappingSource[], coaVersion: string): MappingResult {
  const taxonomy = taxonomyOf(coaVersion);
  const facts: Fact[] = [];
  const seen = new Set<string>();
  for (const source of sources) {
    sentences(source.text).forEach((sentence, i) => {
      const key = sentence.toLowerCase();
      if (facts.length >= MAX_FACTS || sentence.split(' ').length < MIN_FACT_WORDS || seen.has(key)) return;
      seen.add(key);
      const locator = `${source.locator}/s${i}`;
      facts.push({ fact_id: deterministicUuid('fact', source.artifact_id, locator), text: clip(sentence, FACT_MAX_CHARS), source_artifact_id: source.artifact_id, locator });
    });
  }
  const kindOf = new Map(sources.map((s) => [s.artifact_id, s.kind]));
  const coaMap = taxonomy.map((coa) => {
    const matched = new Set<string>();
    const factIds = facts.filter((fact) => {
      const hits = coa.keywords.filter((k) => mentions(fact.text, k));
      hits.forEach((k) => matched.add(k));
      return hits.length > 0;
    }).map((f) => f.fact_id);
    const strength = factIds.length === 0 ? 'none' : factIds.length === 1 ? 'weak' : factIds.length < 4 ? 'moderate' : 'strong';
    return { coa_id: coa.coa_id, label: coa.label, fact_ids: factIds, matched_keywords: [...matched].sort(), strength } as const;
  });
  const supported = coaMap.filter((c) => c.fact_ids.length > 0);
  const summary = clip(
    `${facts.length} facts from ${sources.length} sources mapped under ${coaVersion}. ` +
      (supported.length ? supported.map((c) => `${c.label}: ${c.fact_ids.length} supporting fact(s), ${c.strength}.`).join(' ') : 'No cause of action is supported yet.'),
    2_000,
  );
  return {
    coa_version: coaVersion,
    facts,
    evidence_map: facts.map((f) => ({ fact_id: f.fact_id, artifact_id: f.source_artifact_id, kind: kindOf.get(f.source_artifact_id) ?? 'unknown', locator: f.locator })),
    coa_map: coaMap.map((c) => ({ ...c, fact_ids: [...c.fact_ids], matched_keywords: [...c.matched_keywords] })),
    summary,
  };
}

/** A read input artifact: its reference and its text. */
export interface ReadArtifact {
  artifact_id: string;
  kind: string;
  media_type: string;
  text: string;
}

/**
 * The text sources of one input artifact: the client's turns of a transcript (interviewer questions are not
 * facts), each note of interview notes, the text of a plain-text or `{text}` JSON document. Other media
 * (a PDF) have no local text extraction and give no source.
 */
export function mappingSourcesOf(artifact: ReadArtifact, isInterviewerTurn: (speaker: string) => boolean): MappingSource[] {
  const base = { artifact_id: artifact.artifact_id, kind: artifact.kind };
  const json = artifact.media_type.startsWith('application/json') ? parseOrNull(artifact.text) : null;
  if (artifact.kind === 'transcript' && json) {
    const segments = ((json as { segments?: unknown }).segments ?? []) as Array<{ index?: unknown; speaker?: unknown; text?: unknown }>;
    return segments
      .filter((s) => typeof s.text === 'string' && typeof s.speaker === 'string' && !isInterviewerTurn(s.speaker))
      .map((s) => ({ ...base, locator: `segment:${String(s.index)}`, text: s.text as string }));
  }
  if (artifact.kind === 'interview_notes' && json) {
    const notes = ((json as { notes?: unknown }).notes ?? []) as Array<{ topic?: unknown; summary?: unknown }>;
    return notes.filter((n) => typeof n.summary === 'string').map((n) => ({ ...base, locator: `note:${String(n.topic)}`, text: n.summary as string }));
  }
  if (json && typeof (json as { text?: unknown }).text === 'string') return [{ ...base, locator: 'text', text: (json as { text: string }).text }];
  if (artifact.media_type.startsWith('text/')) return [{ ...base, locator: 'text', text: artifact.text }];
  return [];
}

function parseOrNull(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
