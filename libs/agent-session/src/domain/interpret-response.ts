import { acceptReportText, type ReportBody, type ReportRules } from './final-report/accept';
import { FINAL_REPORT_TOOL, type ToolTransport } from './session-config';
import type { AssistantResponse, ConversationMessage } from './types';
import { scanXml, type XmlScanContext } from './xml/scan';

/** One tool call the turn will run, whichever transport it came through. */
export interface PlannedCall {
  /** Native tool_call id, or the XML slot (`NONCE-0003`). */
  readonly id: string;
  readonly name: string;
  readonly rawArgs: string;
  readonly source: 'native' | 'xml';
  readonly slotNumber?: number;
}

export type FinalCandidate =
  | { readonly source: 'tool'; readonly callId: string; readonly rawArgs: string }
  | { readonly source: 'xml'; readonly payload: string; readonly format?: string; readonly closed: boolean }
  | { readonly source: 'text-fallback'; readonly body: ReportBody; readonly warnings: readonly string[] };

export type AssistantMessage = Extract<ConversationMessage, { role: 'assistant' }>;

/** What one model answer means for the turn: the loop's decision, as data. */
export type Interpretation =
  | { readonly kind: 'ignored'; readonly reason: 'empty' | 'plain_text' }
  | { readonly kind: 'unusable'; readonly detail: string }
  | {
      readonly kind: 'accepted';
      readonly assistant: AssistantMessage;
      readonly calls: readonly PlannedCall[];
      readonly final?: FinalCandidate;
      readonly progress?: string;
      readonly warnings: readonly string[];
    };

export interface InterpretContext {
  readonly transport: ToolTransport;
  /** §5 text fallback: only a final turn may answer in plain text. */
  readonly allowTextFallback: boolean;
  readonly rules: ReportRules;
  /** Required for the XML transports. */
  readonly xml?: XmlScanContext;
}

function assistantMessage(response: AssistantResponse): AssistantMessage {
  const content = response.content !== null && response.content !== '' ? response.content : null;
  return {
    role: 'assistant',
    content,
    ...(response.toolCalls.length > 0 ? { toolCalls: response.toolCalls } : {}),
    ...(response.reasoning ? { reasoning: response.reasoning } : {}),
  };
}

/**
 * §2 Empty or Invalid LLM Responses, §5 final report sources, §11 XML tags. Empty answers and, outside a
 * final turn, plain text are ignored (not stored; retried with the ephemeral notice); reasoning alone
 * proceeds; a final report arrives as the native tool (native transport), the FINAL tag (XML transports)
 * or, on a final turn, as plain text.
 */
export function interpretResponse(response: AssistantResponse, ctx: InterpretContext): Interpretation {
  const text = response.content ?? '';
  const hasText = text.trim() !== '';
  const warnings: string[] = [];
  const calls: PlannedCall[] = [];
  let final: FinalCandidate | undefined;
  let progress: string | undefined;

  for (const call of response.toolCalls) {
    if (call.name === FINAL_REPORT_TOOL && ctx.transport === 'native') final = { source: 'tool', callId: call.id, rawArgs: call.arguments };
    else calls.push({ id: call.id, name: call.name, rawArgs: call.arguments, source: 'native' });
  }

  if (ctx.transport !== 'native' && ctx.xml && hasText) {
    const scan = scanXml(text, { ...ctx.xml, ...(response.stopReason === undefined ? {} : { stopReason: response.stopReason }) });
    if (scan.finalTruncated) return { kind: 'unusable', detail: `the final report was cut off (stop reason ${response.stopReason}); send it again, complete and shorter` };
    if (scan.finalUnclosedUnknownStop) warnings.push('final report tag not closed and the stop reason is unknown; content accepted');
    warnings.push(...scan.ignored.map((i) => `ignored XML tag ${i}`));
    for (const c of scan.calls) calls.push({ id: c.slot, name: c.tool, rawArgs: c.payload, source: 'xml', slotNumber: c.slotNumber });
    if (scan.final) final = { source: 'xml', payload: scan.final.payload, closed: scan.final.closed, ...(scan.final.format ? { format: scan.final.format } : {}) };
    progress = scan.progress;
  }

  const assistant = assistantMessage(response);
  const accepted = (extra: { final?: FinalCandidate }): Interpretation => ({
    kind: 'accepted',
    assistant,
    calls,
    warnings,
    ...(extra.final ? { final: extra.final } : {}),
    ...(progress !== undefined ? { progress } : {}),
  });

  if (calls.length > 0 || final) return accepted({ ...(final ? { final } : {}) });
  // §11: in the XML transports the output is the tags; reasoning alone is a missing output, retried like an empty answer.
  if (!hasText) return response.reasoning && ctx.transport === 'native' ? accepted({}) : { kind: 'ignored', reason: 'empty' };
  if (!ctx.allowTextFallback) return { kind: 'ignored', reason: 'plain_text' };
  const body = acceptReportText(text, ctx.rules);
  if (!body.ok) return { kind: 'unusable', detail: body.error };
  return accepted({ final: { source: 'text-fallback', body: body.body, warnings: body.warnings } });
}
