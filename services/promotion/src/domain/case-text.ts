// Pure rules of what a promotion screen reads from its source case: which records lead to which artifacts,
// which bytes count as text, and how much the screen may read before it refuses instead of guessing.
import { JSON_BOUNDS, settingNumber } from '@runledger/kernel';

/**
 * Case-plane collections whose records name the artifacts holding the case's raw text. The records themselves
 * are summaries (the INTERVIEW_AGENT's `transcripts` record holds ids and counts; notes and facts are clipped):
 * the text is in the artifacts they reference.
 */
export const REFERENCING_COLLECTIONS = ['transcripts', 'interview_notes', 'facts'] as const;

/** Fields of an `entities` document that identify a person. */
export const IDENTITY_FIELDS = ['name', 'full_name', 'first_name', 'last_name', 'aliases', 'email', 'emails', 'phone', 'phones', 'address', 'case_number'] as const;

/** Keys under which records and JSON artifacts reference other artifacts (the mapping's facts name their source documents). */
const REFERENCE_KEYS = new Set(['artifact_id', 'source_artifact_id', 'source_artifact_ids']);
const ARTIFACT_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
/**
 * Every level a stored value may have (the request and ingest bound): the walks below read all of it. A value nested
 * deeper is refused by the reader before them (CaseSourcesReader): skipping its deep strings would screen it in part.
 */
const MAX_DEPTH = JSON_BOUNDS.maxDepth;

/** How much one screen reads. Hitting a limit refuses the promotion: a partial screen would fail open. */
export interface ScreenLimits {
  /** Records read per collection of the case. */
  maxRecords: number;
  /** Artifacts read, named by the caller or reached through references. */
  maxArtifacts: number;
  /** Bytes of text screened in all (the screen holds every 8-word window of it in memory). */
  maxTextBytes: number;
}

export const DEFAULT_SCREEN_LIMITS: ScreenLimits = { maxRecords: 1_000, maxArtifacts: 200, maxTextBytes: 8 * 1024 * 1024 };

export const SCREEN_INCOMPLETE = 'PROMOTION.SCREEN_INCOMPLETE';

/** Limits from the environment (PROMOTION_MAX_CASE_RECORDS, _SCREEN_ARTIFACTS, _SCREEN_TEXT_BYTES); bad values keep the default. */
export function screenLimitsFrom(env: Readonly<Record<string, string | undefined>>): ScreenLimits {
  return {
    maxRecords: settingNumber('PROMOTION_MAX_CASE_RECORDS', env, DEFAULT_SCREEN_LIMITS.maxRecords),
    maxArtifacts: settingNumber('PROMOTION_MAX_SCREEN_ARTIFACTS', env, DEFAULT_SCREEN_LIMITS.maxArtifacts),
    maxTextBytes: settingNumber('PROMOTION_MAX_SCREEN_TEXT_BYTES', env, DEFAULT_SCREEN_LIMITS.maxTextBytes),
  };
}

/** Every string inside a JSON value (ids and all: extra text only makes the verbatim check stricter). */
export function strings(value: unknown, depth = 0): string[] {
  if (typeof value === 'string') return [value];
  if (depth > MAX_DEPTH) return [];
  if (Array.isArray(value)) return value.flatMap((v) => strings(v, depth + 1));
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap((v) => strings(v, depth + 1));
  return [];
}

/** The artifact ids a record or JSON artifact references, in order of appearance, without repeats. */
export function referencedArtifactIds(value: unknown): string[] {
  const found = new Set<string>();
  const walk = (v: unknown, depth: number): void => {
    if (depth > MAX_DEPTH || v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) return v.forEach((item) => walk(item, depth + 1));
    for (const [key, child] of Object.entries(v)) {
      if (REFERENCE_KEYS.has(key)) for (const id of [child].flat()) if (typeof id === 'string' && ARTIFACT_ID.test(id)) found.add(id);
      walk(child, depth + 1);
    }
  };
  walk(value, 0);
  return [...found];
}

export interface ArtifactText {
  /** The text to screen, or null for media with no local text extraction (a PDF, an image, an archive). */
  text: string | null;
  /** The parsed value of a JSON artifact, to follow its references. */
  json?: unknown;
}

/**
 * The screenable text of an artifact. JSON artifacts are screened by their string values, one per line, so
 * that keys and ids between two transcript segments do not break a copied run across them; text is screened as is.
 */
export function artifactText(mediaType: string, bytes: Uint8Array): ArtifactText {
  const type = mediaType.split(';')[0].trim().toLowerCase();
  const isJson = type === 'application/json' || type.endsWith('+json');
  if (!isJson && !type.startsWith('text/')) return { text: null };
  const decoded = new TextDecoder('utf-8').decode(bytes);
  if (!isJson) return { text: decoded };
  try {
    const json = JSON.parse(decoded) as unknown;
    return { text: strings(json).join('\n'), json };
  } catch {
    return { text: decoded };
  }
}
