import { finalReportToolSpec } from '../domain/final-report/tool-spec';
import type { InterpretContext } from '../domain/interpret-response';
import { finalTurnInstruction } from '../domain/notices';
import { BATCH_TOOL } from '../domain/session-config';
import { estimateSchemaTokens } from '../domain/tokens';
import type { ConversationMessage, ToolSpec } from '../domain/types';
import { renderXmlNext } from '../domain/xml/messages';
import type { SessionState } from './session-state';

/** What one turn offers the model and may execute. */
export interface TurnPlan {
  /** A forced-final turn: only the final report is allowed (§2 Forced Final Turn). */
  readonly forced: boolean;
  /** Tool definitions sent to the provider. */
  readonly requestTools: readonly ToolSpec[];
  /** Tools that may run this turn (never the final report, which ends the session instead). */
  readonly runnable: ReadonlySet<string>;
  /** Ephemeral messages appended to this turn's requests only (final instruction, XML-NEXT). */
  readonly ephemeral: readonly ConversationMessage[];
  readonly interpret: InterpretContext;
  readonly schemaTokens: number;
}

export const BATCH_TOOL_SPEC: ToolSpec = {
  name: BATCH_TOOL,
  description: 'Run several tools in one call. Each entry names a tool and its parameters; results come back in order.',
  mcpServer: 'agent',
  inputSchema: {
    type: 'object',
    properties: {
      calls: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          properties: { id: { type: 'string' }, tool: { type: 'string' }, parameters: { type: 'object' } },
          required: ['tool', 'parameters'],
        },
      },
    },
    required: ['calls'],
  },
};

export function planTurn(state: SessionState, turn: number): TurnPlan {
  const { config } = state;
  const forced = state.forcedFinal !== undefined || turn >= state.effectiveMaxTurns;
  const userTools = [...config.tools, ...(config.batchTool && config.tools.length > 0 ? [BATCH_TOOL_SPEC] : [])];
  const offered = forced ? [] : userTools;
  const finalSpec = finalReportToolSpec(config.expectedOutputFormat, config.outputSchema);
  const transport = config.toolTransport;

  // Ephemeral messages go as `user` turns: several providers reject or merge a `system` message after the
  // conversation has started (the same reason §11 returns XML tool results as user messages).
  const ephemeral: ConversationMessage[] = [];
  if (forced) {
    const how = transport === 'native' ? `by calling ${finalSpec.name}` : 'in the final-report tag described in XML-NEXT';
    ephemeral.push({ role: 'user', content: finalTurnInstruction(state.forcedFinal ?? 'max_turns', how) });
  }
  if (transport !== 'native') {
    ephemeral.push({
      role: 'user',
      content: renderXmlNext({
        nonce: state.nonce,
        mode: transport,
        firstSlot: state.nextSlot,
        slotCount: config.maxToolCallsPerTurn,
        tools: transport === 'xml' ? offered : [],
        format: config.expectedOutputFormat,
        ...(config.outputSchema ? { outputSchema: config.outputSchema } : {}),
        progress: false,
      }),
    });
  }

  // §11: native keeps every tool native; xml-final keeps tools native but moves the final report to XML;
  // xml withholds provider tool definitions entirely.
  const requestTools = transport === 'native' ? [...offered, finalSpec] : transport === 'xml-final' ? offered : [];
  return {
    forced,
    requestTools,
    runnable: new Set(offered.map((t) => t.name)),
    ephemeral,
    schemaTokens: estimateSchemaTokens(requestTools),
    interpret: {
      transport,
      allowTextFallback: forced,
      rules: state.rules,
      ...(transport === 'native'
        ? {}
        : {
            xml: {
              nonce: state.nonce,
              nextSlot: state.nextSlot,
              slotTools: new Set(transport === 'xml' ? offered.map((t) => t.name) : []),
              progressEnabled: false,
            },
          }),
    },
  };
}
