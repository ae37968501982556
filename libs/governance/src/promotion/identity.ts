import { findSequence, tokenize, type Token } from './text';

/** A client-identity hit: where, and a redacted description safe for the audit log. */
export interface IdentityHit {
  readonly start: number;
  readonly end: number;
  readonly description: string;
}

// Deliberately broad: anything shaped like an email has no place in shared knowledge.
const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/gu;
// Digit groups with the usual phone separators and an optional +country code; reported as a phone
// number on its own at 10+ digits, compared against supplied phone identifiers at any length.
const PHONE = /(?<![\p{N}])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)|\d{2,4})(?:[\s.-]?\d{2,4}){1,3}(?![\p{N}])/gu;
const PHONE_IDENTIFIER = /^[+\d\s().-]+$/;
const MIN_PHONE_DIGITS = 7;

/** Finds supplied client identifiers (case-, accent- and punctuation-insensitive) and email/phone shapes. */
export function findIdentity(text: string, tokens: readonly Token[], identifiers: readonly string[]): IdentityHit[] {
  const hits: IdentityHit[] = [];
  identifiers.forEach((identifier, i) => {
    if (identifier.trim() === '') return; // numbering still follows the caller's list
    const label = `supplied client identifier #${i + 1} (${mask(identifier.trim())})`;
    if (isPhoneIdentifier(identifier)) {
      const wanted = lastDigits(identifier);
      for (const m of text.matchAll(PHONE)) {
        if (lastDigits(m[0]).endsWith(wanted)) hits.push({ start: m.index, end: m.index + m[0].length, description: label });
      }
      return;
    }
    const words = tokenize(identifier).map((t) => t.word);
    for (const at of findSequence(tokens, words)) {
      hits.push({ start: tokens[at].start, end: tokens[at + words.length - 1].end, description: label });
    }
  });
  for (const m of text.matchAll(EMAIL)) {
    hits.push({ start: m.index, end: m.index + m[0].length, description: `email address (${maskEmail(m[0])})` });
  }
  for (const m of text.matchAll(PHONE)) {
    const digits = m[0].replace(/\D/g, '');
    if (digits.length >= 10) {
      hits.push({ start: m.index, end: m.index + m[0].length, description: `phone number (${digits.length} digits, ending ${digits.slice(-2)})` });
    }
  }
  return dedupe(hits);
}

function isPhoneIdentifier(identifier: string): boolean {
  return PHONE_IDENTIFIER.test(identifier) && identifier.replace(/\D/g, '').length >= MIN_PHONE_DIGITS;
}

// Comparing the last ten digits makes "+1 (555) 010-2030" and "555.010.2030" the same number,
// and a supplied local number ("010-2030") matches the end of a full one.
function lastDigits(value: string): string {
  return value.replace(/\D/g, '').slice(-10);
}

// Overlapping hits are one leak: the widest wins (an email beats the name inside it), and a supplied
// identifier beats the same span found by pattern, since it is listed first.
function dedupe(hits: IdentityHit[]): IdentityHit[] {
  const widestFirst = hits.map((hit, order) => ({ hit, order })).sort((a, b) => b.hit.end - b.hit.start - (a.hit.end - a.hit.start) || a.order - b.order);
  const kept: IdentityHit[] = [];
  for (const { hit } of widestFirst) {
    if (!kept.some((k) => hit.start < k.end && k.start < hit.end)) kept.push(hit);
  }
  return kept.sort((a, b) => a.start - b.start);
}

/** First character, then one asterisk per remaining character (at most 8): enough to tell hits apart. */
export function mask(value: string): string {
  const chars = [...value];
  if (chars.length === 0) return '';
  return chars[0] + '*'.repeat(Math.min(chars.length - 1, 8));
}

function maskEmail(email: string): string {
  const [local, domain] = email.split('@');
  const tld = domain.slice(domain.lastIndexOf('.'));
  return `${mask(local)}@${mask(domain.slice(0, domain.lastIndexOf('.')))}${tld}`;
}
