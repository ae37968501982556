import { findIdentity } from './identity';
import { findSequence, shingles, tokenize, type Token } from './text';
import { truncateChars } from '@runledger/kernel';

/** Length of the word shingles compared between candidate and case artifacts. */
export const SHINGLE_WORDS = 8;
/** Findings listed per rule; the rest are counted in one closing finding. */
export const MAX_FINDINGS_PER_RULE = 10;

export type PromotionRule = 'raw_case_text' | 'client_identity' | 'privileged_notes';

export interface PromotionFinding {
  rule: PromotionRule;
  /** Where and what kind of match, never the matched case text itself (≤ 160 characters). */
  evidence: string;
}

export type PromotionScreen = { ok: true } | { ok: false; findings: PromotionFinding[] };

export interface PromotionScreenInput {
  /** The insight proposed for the shared knowledge plane. */
  candidateText: string;
  /** The text of the source case's own artifacts (transcripts, notes, documents …). */
  caseArtifactsText: readonly string[];
  /** Known identifiers of the client: names, emails, phone numbers, case numbers. */
  clientIdentifiers: readonly string[];
}

/** Privilege markers, as normalised word sequences ("privileged & confidential" reads as "privileged and confidential"). */
export const PRIVILEGE_MARKERS: readonly string[] = Object.freeze([
  'attorney client privileged',
  'attorney client privilege',
  'attorney client communication',
  'privileged and confidential',
  'privileged confidential',
  'privileged communication',
  'work product',
  'prepared at the direction of counsel',
]);

/** What the sanitiser does and does not catch, for operators and the promotion receipt. */
export const PROMOTION_DETECTION_LIMITS = [
  `Detected: (1) raw case text — any run of ${SHINGLE_WORDS} or more consecutive words that also occurs in one of the supplied case artifacts, compared after lower-casing, removing accents and treating all punctuation and whitespace alike;`,
  '(2) client identity — every supplied identifier (name, email, phone, case number) wherever its words occur in the same order, ignoring case, accents and punctuation, and supplied phone numbers by their digits; plus anything shaped like an email address, and any phone-shaped number of 10 or more digits, supplied or not;',
  `(3) privileged notes — the markers ${PRIVILEGE_MARKERS.map((m) => `"${m}"`).join(', ')}, ignoring case and punctuation.`,
  `Not detected: paraphrased or summarised case text, or verbatim runs shorter than ${SHINGLE_WORDS} words; text from case artifacts that were not supplied;`,
  'names, addresses, case numbers or other identifiers that were not supplied (beyond the email and phone patterns), nicknames, misspellings, initials, or identity revealed by combining facts;',
  'privileged content that carries no marker. A pass therefore means "no known leak found", not "safe": promotion still needs the ticket\'s human approval.',
].join(' ');

/**
 * §4.5 promotion sanitiser: refuses candidate text carrying raw case text, client identity or
 * privileged notes. Findings say where and what kind, with identifiers masked, so the refusal can be
 * audited without copying the leak into the audit log.
 */
export function screenPromotion(input: PromotionScreenInput): PromotionScreen {
  const tokens = tokenize(input.candidateText);
  const findings = [
    ...cap('raw_case_text', findCopiedRuns(tokens, input.caseArtifactsText)),
    ...cap(
      'client_identity',
      findIdentity(input.candidateText, tokens, input.clientIdentifiers).map(
        (h) => `${h.description} at characters ${h.start}-${h.end}`,
      ),
    ),
    ...cap('privileged_notes', findMarkers(tokens)),
  ];
  return findings.length === 0 ? { ok: true } : { ok: false, findings };
}

function findCopiedRuns(tokens: readonly Token[], artifacts: readonly string[]): string[] {
  const source = new Map<string, number>();
  artifacts.forEach((artifact, index) => {
    for (const s of shingles(tokenize(artifact), SHINGLE_WORDS)) if (!source.has(s)) source.set(s, index);
  });
  const runs: Array<{ from: number; to: number; artifact: number }> = [];
  shingles(tokens, SHINGLE_WORDS).forEach((s, i) => {
    const artifact = source.get(s);
    if (artifact === undefined) return;
    const last = runs[runs.length - 1];
    // Overlapping or adjacent matched windows are one copied run.
    if (last && i <= last.to + 1) last.to = i + SHINGLE_WORDS - 1;
    else runs.push({ from: i, to: i + SHINGLE_WORDS - 1, artifact });
  });
  return runs.map(
    (r) =>
      `verbatim run of ${r.to - r.from + 1} words from case artifact #${r.artifact + 1} at characters ${tokens[r.from].start}-${tokens[r.to].end}`,
  );
}

function findMarkers(tokens: readonly Token[]): string[] {
  const hits: Array<{ from: number; to: number; marker: string }> = [];
  for (const marker of PRIVILEGE_MARKERS) {
    const length = marker.split(' ').length;
    for (const i of findSequence(tokens, marker.split(' '))) hits.push({ from: i, to: i + length - 1, marker });
  }
  return hits
    .sort((a, b) => a.from - b.from)
    .map((h) => `privilege marker "${h.marker}" at characters ${tokens[h.from].start}-${tokens[h.to].end}`);
}

function cap(rule: PromotionRule, evidence: readonly string[]): PromotionFinding[] {
  const listed = evidence.slice(0, MAX_FINDINGS_PER_RULE).map((e) => ({ rule, evidence: truncateChars(e, 160) }));
  if (evidence.length > MAX_FINDINGS_PER_RULE) {
    listed.push({ rule, evidence: `and ${evidence.length - MAX_FINDINGS_PER_RULE} more ${rule} matches` });
  }
  return listed;
}
