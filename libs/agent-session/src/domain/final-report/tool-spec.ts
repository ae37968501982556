import { FINAL_REPORT_TOOL } from '../session-config';
import type { ReportFormat, ToolSpec } from '../types';

/** Which argument carries the report body for a format (§5 Final Report Structure). */
export function contentFieldOf(format: ReportFormat): 'content_json' | 'messages' | 'report_content' {
  if (format === 'json') return 'content_json';
  if (format === 'slack-block-kit') return 'messages';
  return 'report_content';
}

/**
 * The `agent__final_report` tool. `format` is pinned with `const` (§5 Format Enforcement); the model
 * provides no status — the session sets it from the report's source.
 */
export function finalReportToolSpec(format: ReportFormat, outputSchema?: Readonly<Record<string, unknown>>): ToolSpec {
  const field = contentFieldOf(format);
  const body: Record<string, unknown> =
    field === 'content_json'
      ? { content_json: { description: 'The answer as a JSON object matching the expected schema.', ...(outputSchema ?? { type: 'object' }) } }
      : field === 'messages'
        ? { messages: { type: 'array', minItems: 1, items: { type: 'object' }, description: 'Slack Block Kit messages.' } }
        : {
            report_content: { type: 'string', description: `The complete answer, in ${format}.` },
            encoding: { type: 'string', enum: ['raw', 'base64'], description: 'base64 when report_content is base64-encoded; default raw.' },
          };
  return {
    name: FINAL_REPORT_TOOL,
    description: 'Deliver the final answer and end the session. Call it exactly once, when the task is done.',
    mcpServer: 'agent',
    inputSchema: {
      type: 'object',
      properties: {
        format: { type: 'string', const: format, description: `Always "${format}".` },
        ...body,
        metadata: { type: 'object', description: 'Optional structured data about the answer.' },
      },
      required: ['format', field],
    },
  };
}
