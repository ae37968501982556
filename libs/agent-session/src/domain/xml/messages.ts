import { FINAL_REPORT_TOOL } from '../session-config';
import type { ReportFormat, ToolSpec } from '../types';
import { PROGRESS_TOOL } from './scan';
import { closeTag, FINAL_SLOT, openTag, PROGRESS_SLOT, slotName } from './tags';

export interface XmlNextInput {
  readonly nonce: string;
  readonly mode: 'xml' | 'xml-final';
  /** First slot number offered this turn and how many. */
  readonly firstSlot: number;
  readonly slotCount: number;
  /** Tools callable through slots (xml mode); empty on forced-final turns. */
  readonly tools: readonly ToolSpec[];
  readonly format: ReportFormat;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  readonly progress: boolean;
}

/**
 * XML-NEXT (§11): the per-turn, ephemeral instructions. All tool and final-report text lives here, never in
 * the system prompt, so a forced-final turn hides the other tools simply by not listing them.
 */
export function renderXmlNext(input: XmlNextInput): string {
  const { nonce } = input;
  const lines = [`System notice (XML-NEXT). Session nonce: ${nonce}.`];
  if (input.mode === 'xml' && input.tools.length > 0) {
    const first = slotName(nonce, input.firstSlot);
    const last = slotName(nonce, input.firstSlot + input.slotCount - 1);
    const example = String(input.firstSlot).padStart(4, '0');
    lines.push(
      `To call a tool, write one tag per call in your reply, each with its own slot (${first} … ${last}); the payload is the JSON arguments object:`,
      `${openTag(nonce, example, { tool: 'TOOL_NAME' })}{"argument": "value"}${closeTag(nonce, example)}`,
      'Available tools:',
      ...input.tools.map((t) => `- ${t.name}: ${t.description ?? ''}\n  schema: ${JSON.stringify(t.inputSchema)}`),
    );
  } else if (input.mode === 'xml') {
    lines.push('No tools can be called now.');
  }
  if (input.progress && input.mode === 'xml') {
    lines.push(`Optional progress update: ${openTag(nonce, PROGRESS_SLOT, { tool: PROGRESS_TOOL })}one short sentence${closeTag(nonce, PROGRESS_SLOT)}`);
  }
  lines.push(
    'When you have the answer, deliver it (this ends the session):',
    `${openTag(nonce, FINAL_SLOT, { tool: FINAL_REPORT_TOOL, format: input.format })}`,
    `…your complete answer in ${input.format}…`,
    closeTag(nonce, FINAL_SLOT),
  );
  if (input.format === 'json') lines.push(`The answer must be JSON matching this schema: ${JSON.stringify(input.outputSchema ?? { type: 'object' })}`);
  if (input.format === 'slack-block-kit') lines.push('The answer must be a JSON array of Slack Block Kit messages.');
  return lines.join('\n');
}

export interface XmlToolResult {
  readonly slot: string;
  readonly tool: string;
  readonly status: 'ok' | 'failed';
  readonly durationMs: number;
  readonly request: string;
  readonly response: string;
}

/** XML-PAST (§11): the permanent user message carrying the previous turn's tool results. */
export function renderXmlPast(results: readonly XmlToolResult[]): string {
  return results
    .map((r) =>
      [
        `System Notice: tool response for ${r.slot} (${r.tool})`,
        `status: ${r.status}`,
        `duration_ms: ${r.durationMs}`,
        '<request>',
        r.request,
        '</request>',
        '<response>',
        r.response,
        '</response>',
      ].join('\n'),
    )
    .join('\n\n');
}
