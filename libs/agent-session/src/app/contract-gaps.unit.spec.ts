import { reply } from '../testing/scripted-model';
import { harness, llmEntries } from './session-harness.unit-support';

const small = { targets: [{ provider: 'p1', model: 'm1', contextWindow: 2000 }], contextWindowBufferTokens: 100, maxOutputTokens: 400, toolResponseMaxBytes: 1_000_000 };

describe('Contract 002 where it was not met', () => {
  it('§2 Forced Final Turn: once the guard forces the final turn the session gets that one turn, then the synthetic failure — not final turns up to maxTurns', async () => {
    const h = harness({
      script: [
        reply.tools({ name: 'big', args: {}, id: 'c1' }),
        // The forced final turn answers with another tool call instead of the report.
        reply.tools({ name: 'big', args: {}, id: 'c2' }),
        reply.finalReport('too late'),
      ],
      tools: { big: () => 'x'.repeat(8000) },
      config: { ...small, maxTurns: 8 },
    });
    const result = await h.run();
    expect(h.model.requests).toHaveLength(2);
    expect(h.model.requests[1]!.tools.map((t) => t.name)).toEqual(['agent__final_report']);
    expect(result).toMatchObject({ success: false, finalReport: { status: 'failure', source: 'synthetic', metadata: { reason: 'context_window_exhausted', forcedFinalReason: 'context' } } });
  });

  it('§2 Forced Final Turn: a turn_preflight overflow makes that very turn the last', async () => {
    const h = harness({
      script: [reply.text('plain text is ignored on a normal turn')],
      config: { ...small, maxTurns: 5, maxRetries: 1, systemPrompt: 'y'.repeat(7000) },
    });
    const result = await h.run();
    expect(h.model.requests).toHaveLength(1);
    // On the forced final turn plain text is accepted as the report (§5 text fallback).
    expect(result).toMatchObject({ success: true, finalReport: { source: 'text-fallback' } });
  });

  it('§11 Retries and missing outputs: a reasoning-only answer in the XML transports is a missing output and is retried', async () => {
    for (const toolTransport of ['xml-final', 'xml'] as const) {
      const h = harness({
        script: [reply.reasoning('thinking only'), reply.text('<ai-agent-abcd1234-FINAL tool="agent__final_report" format="markdown">done</ai-agent-abcd1234-FINAL>')],
        config: { toolTransport, maxTurns: 1, maxRetries: 2 },
      });
      const result = await h.run();
      expect(h.model.requests).toHaveLength(2);
      expect(llmEntries(result.accounting).map((e) => e.status)).toEqual(['failed', 'ok']);
      expect(result).toMatchObject({ success: true, finalReport: { content: 'done' } });
      // The reasoning-only answer never entered the conversation.
      expect(result.conversation.some((m) => m.role === 'assistant' && m.reasoning === 'thinking only')).toBe(false);
    }
  });
});
