import { FINAL_REPORT_TOOL } from '../session-config';
import { FINAL_SLOT, findTags, PROGRESS_SLOT } from './tags';

export const PROGRESS_TOOL = 'agent__progress_report';

/** §11 Unclosed final-report tag: the stop reason decides whether the content is complete. */
const NORMAL_STOPS = new Set(['stop', 'end_turn', 'end', 'eos']);
const TRUNCATION_STOPS = new Set(['length', 'max_tokens']);

export interface XmlCall {
  readonly slot: string;
  readonly slotNumber: number;
  readonly tool: string;
  readonly payload: string;
}

export interface XmlFinal {
  readonly payload: string;
  readonly format?: string;
  readonly closed: boolean;
}

export interface XmlScan {
  readonly calls: readonly XmlCall[];
  readonly final?: XmlFinal;
  /** An unclosed final tag cut off by the output limit: retry (§11). */
  readonly finalTruncated: boolean;
  /** An unclosed final tag with an unknown stop reason: accepted with a warning (§11). */
  readonly finalUnclosedUnknownStop: boolean;
  readonly progress?: string;
  /** Tags ignored as invalid or mismatched, with why (they cost no attempt). */
  readonly ignored: readonly string[];
}

export interface XmlScanContext {
  readonly nonce: string;
  /** Lowest slot number not used yet (§11: slots keep counting across turns). */
  readonly nextSlot: number;
  /** Tools invocable through numbered slots; empty in xml-final (tools stay native there). */
  readonly slotTools: ReadonlySet<string>;
  readonly progressEnabled: boolean;
  readonly stopReason?: string;
}

/** Reads the tags of one assistant message: numbered tool slots, the final report, progress. */
export function scanXml(text: string, ctx: XmlScanContext): XmlScan {
  const calls: XmlCall[] = [];
  const used = new Set<number>();
  const ignored: string[] = [];
  let final: XmlFinal | undefined;
  let progress: string | undefined;
  for (const tag of findTags(text, ctx.nonce)) {
    const tool = tag.attributes.tool;
    if (tag.slot === FINAL_SLOT) {
      if (tool !== FINAL_REPORT_TOOL) ignored.push(`${tag.slot}: tool must be ${FINAL_REPORT_TOOL}`);
      // Structured output: the last valid final tag wins (§11 Ordering and selection).
      else final = { payload: tag.payload, closed: tag.closed, ...(tag.attributes.format ? { format: tag.attributes.format } : {}) };
      continue;
    }
    if (!tag.closed) {
      ignored.push(`${tag.slot}: no closing tag`);
      continue;
    }
    if (tag.slot === PROGRESS_SLOT) {
      if (ctx.progressEnabled) progress = tag.payload.trim();
      else ignored.push(`${tag.slot}: progress is not enabled`);
      continue;
    }
    const n = /^\d+$/.test(tag.slot) ? Number(tag.slot) : NaN;
    if (!Number.isInteger(n) || n < ctx.nextSlot || used.has(n)) {
      ignored.push(`${tag.slot}: not an unused slot`);
      continue;
    }
    if (tool === undefined || !ctx.slotTools.has(tool)) {
      ignored.push(`${tag.slot}: tool '${tool ?? ''}' is not offered`);
      continue;
    }
    used.add(n);
    calls.push({ slot: `${ctx.nonce}-${tag.slot}`, slotNumber: n, tool, payload: tag.payload.trim() });
  }
  const stop = ctx.stopReason;
  const unclosed = final !== undefined && !final.closed;
  return {
    calls,
    ...(final ? { final } : {}),
    finalTruncated: unclosed && stop !== undefined && TRUNCATION_STOPS.has(stop),
    finalUnclosedUnknownStop: unclosed && (stop === undefined || (!NORMAL_STOPS.has(stop) && !TRUNCATION_STOPS.has(stop))),
    ...(progress !== undefined ? { progress } : {}),
    ignored,
  };
}
