/**
 * §11 tag detection by substring (no XML parser): `<ai-agent-NONCE-SLOT attr="…">payload</ai-agent-NONCE-SLOT>`.
 * Models produce almost-XML; substring matching tolerates everything around the tags.
 */

export const FINAL_SLOT = 'FINAL';
export const PROGRESS_SLOT = 'PROGRESS';

export interface XmlTag {
  /** `0001`, `FINAL`, `PROGRESS`, … (the part after `NONCE-`). */
  readonly slot: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly payload: string;
  /** False when the text ended before the closing tag. */
  readonly closed: boolean;
}

/** `NONCE-0001`: four digits, growing past four when a long session needs it. */
export function slotName(nonce: string, n: number): string {
  return `${nonce}-${String(n).padStart(4, '0')}`;
}

export function openTag(nonce: string, slot: string, attributes: Readonly<Record<string, string>>): string {
  const attrs = Object.entries(attributes).map(([k, v]) => ` ${k}="${v}"`).join('');
  return `<ai-agent-${nonce}-${slot}${attrs}>`;
}

export function closeTag(nonce: string, slot: string): string {
  return `</ai-agent-${nonce}-${slot}>`;
}

function parseAttributes(text: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  for (const m of text.matchAll(/([A-Za-z_][\w-]*)\s*=\s*"([^"]*)"/g)) attrs[m[1]!] = m[2]!;
  return attrs;
}

/** Every tag of this session's nonce in `text`, in order. A tag without a closing tag runs to the end. */
export function findTags(text: string, nonce: string): XmlTag[] {
  const prefix = `<ai-agent-${nonce}-`;
  const tags: XmlTag[] = [];
  let pos = 0;
  // A scan: each round starts past the previous match, so it ends at the text's end.
  for (let start = text.indexOf(prefix); start >= 0; start = text.indexOf(prefix, pos)) {
    const afterPrefix = start + prefix.length;
    const slotMatch = /^[A-Za-z0-9]+/.exec(text.slice(afterPrefix));
    const openEnd = text.indexOf('>', afterPrefix);
    if (!slotMatch || openEnd < 0) {
      pos = afterPrefix;
      continue;
    }
    const slot = slotMatch[0];
    const attributes = parseAttributes(text.slice(afterPrefix + slot.length, openEnd));
    const close = closeTag(nonce, slot);
    const closeAt = text.indexOf(close, openEnd + 1);
    if (closeAt < 0) {
      tags.push({ slot, attributes, payload: text.slice(openEnd + 1), closed: false });
      break;
    }
    tags.push({ slot, attributes, payload: text.slice(openEnd + 1, closeAt), closed: true });
    pos = closeAt + close.length;
  }
  return tags;
}
