import { sha256Hex } from '@runledger/governance';
import { invalidInput } from './errors';
import { clip, textOf } from './text';

export const PROMOTION_TARGETS = ['shared_playbooks', 'shared_heuristics'] as const;
export type PromotionTarget = (typeof PROMOTION_TARGETS)[number];

/** Input kinds that describe the promotion itself; every other input is case material named as a source. */
export const PROMOTION_KINDS = ['promotion_ticket', 'candidate_insights', 'redaction_report', 'client_identifiers'];

/** The promotion service's request limits (PromotionRequestDto): refused here first, with a clear message. */
const MAX_TITLE = 200;
const MAX_TEXT = 20_000;
const MAX_IDENTIFIERS = 100;
const MAX_IDENTIFIER_CHARS = 256;

export interface Candidate {
  title: string;
  text: string;
}

/**
 * The promotion target a promotion_ticket artifact (§4.5 "approval + scope") names: its first `scope.targets` entry
 * (or a legacy top-level `target`), else shared_playbooks. Nothing else of the ticket is judged here: the promotion
 * service is the authority (it re-reads the artifact the request names by id and checks approver, approval, scope,
 * expiry and single use, PROMOTION.TICKET_*), so every ticket refusal is recorded on a promotion run. The agent
 * judging approval itself ended the run POLICY_DENIED with no promotion run (probe finding L5).
 */
export function ticketTargetOf(json: unknown): PromotionTarget {
  const ticket = json as Record<string, unknown> | null;
  const targets = (ticket?.scope as { targets?: unknown } | undefined)?.targets;
  const target = textOf(Array.isArray(targets) ? targets[0] : ticket?.target);
  return (PROMOTION_TARGETS as readonly string[]).includes(target) ? (target as PromotionTarget) : 'shared_playbooks';
}

/** The candidate of a candidate_insights artifact: `{title, text}` or `{candidates: [{title, text}, …]}` (the first). */
export function candidateOf(json: unknown): Candidate {
  const raw = json as Record<string, unknown> | null;
  const first = Array.isArray(raw?.candidates) ? (raw.candidates[0] as Record<string, unknown> | undefined) : raw;
  const candidate = { title: clip(textOf(first?.title), MAX_TITLE), text: textOf(first?.text) };
  if (!candidate.title || !candidate.text) throw invalidInput('The candidate_insights artifact needs a title and a text.');
  if (candidate.text.length > MAX_TEXT) throw invalidInput(`The candidate text is longer than ${MAX_TEXT} characters.`);
  return candidate;
}

/**
 * The digest a GOVERNANCE_AGENT run records instead of the candidate (a refused candidate may be the very leak
 * being stopped, and the log is permanent). The promotion run records the same digest as `candidate_sha256`.
 */
export function candidateSha256(candidate: Candidate): string {
  return sha256Hex(`${candidate.title}\n${candidate.text}`);
}

/**
 * The client identifiers of a client_identifiers artifact: `["…"]` or `{client_identifiers: ["…"]}`. Too many or
 * malformed identifiers are refused, never trimmed: screening against fewer than were given would fail open.
 */
export function identifiersOf(json: unknown): string[] {
  const list = Array.isArray(json) ? json : (json as { client_identifiers?: unknown } | null)?.client_identifiers;
  if (!Array.isArray(list) || !list.every((v) => typeof v === 'string')) throw invalidInput('The client_identifiers artifact must be a list of strings (or {client_identifiers: [...]}).');
  const identifiers = [...new Set(list.map((v) => v.trim()).filter(Boolean))];
  if (identifiers.length > MAX_IDENTIFIERS) throw invalidInput(`At most ${MAX_IDENTIFIERS} client identifiers can be screened per promotion.`);
  if (identifiers.some((v) => v.length > MAX_IDENTIFIER_CHARS)) throw invalidInput(`A client identifier is longer than ${MAX_IDENTIFIER_CHARS} characters.`);
  return identifiers;
}
