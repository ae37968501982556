import { EMPTY_RESPONSE_NOTICE } from '../domain/notices';
import { reply } from '../testing/scripted-model';
import { harness, roles, toolEntries } from './session-harness.unit-support';

const N = 'abcd1234';
const final = (body: string, format = 'markdown', close = true) =>
  `<ai-agent-${N}-FINAL tool="agent__final_report" format="${format}">${body}${close ? `</ai-agent-${N}-FINAL>` : ''}`;
const slot = (n: string, tool: string, payload: unknown) => `<ai-agent-${N}-${n} tool="${tool}">${JSON.stringify(payload)}</ai-agent-${N}-${n}>`;
const tools = { search: (a: Record<string, unknown>) => `found ${String(a.q)}`, echo: (a: Record<string, unknown>) => a.v };

describe('§11 XML transport', () => {
  it('§11 XML: xml-final keeps tools native, moves the final report to the FINAL tag, keeps the system prompt free of tool text and stores no XML-NEXT or XML-PAST', async () => {
    const h = harness({
      script: [reply.tools({ name: 'search', args: { q: 'a' } }), reply.text(`Here it is.\n${final('\n# Report\nAll good\n')}`)],
      tools,
      config: { toolTransport: 'xml-final' },
    });
    const result = await h.run();
    const first = h.model.requests[0]!;
    expect(first.tools.map((t) => t.name)).toEqual(['echo', 'search']);
    expect(first.toolChoice).toBe('auto');
    expect(first.messages[0]).toEqual({ role: 'system', content: 'You are a test agent.' });
    const xmlNext = first.messages.at(-1)!.content!;
    expect(xmlNext).toContain(`Session nonce: ${N}`);
    expect(xmlNext).toContain(`<ai-agent-${N}-FINAL tool="agent__final_report" format="markdown">`);
    expect(xmlNext).not.toContain(`${N}-0001`);
    expect(result.finalReport).toMatchObject({ status: 'success', source: 'xml', format: 'markdown', content: '# Report\nAll good' });
    expect(roles(result.conversation)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
    expect(toolEntries(result.accounting).map((e) => [e.command, e.source, e.status])).toEqual([
      ['search', 'native', 'ok'],
      ['agent__final_report_xml', 'xml', 'ok'],
    ]);
  });

  it('§11 XML: xml mode withholds tool definitions, runs tools from numbered slots that keep counting across turns, stores XML-PAST and never XML-NEXT', async () => {
    const h = harness({
      script: [
        reply.text(`${slot('0001', 'search', { q: 'a' })}\n${slot('0002', 'echo', { v: 1 })}`),
        reply.text(`${slot('0001', 'search', { q: 'reused' })}${slot('0003', 'echo', { v: 3 })}`),
        reply.text(final('done')),
      ],
      tools,
      config: { toolTransport: 'xml' },
    });
    const result = await h.run();
    expect(h.model.requests.map((r) => r.tools)).toEqual([[], [], []]);
    const next1 = h.model.requests[0]!.messages.at(-1)!.content!;
    expect(next1).toContain(`(${N}-0001 … ${N}-0010)`);
    expect(next1).toContain('- search: test tool search');
    expect(h.model.requests[1]!.messages.at(-1)!.content).toContain(`(${N}-0003 … ${N}-0012)`);
    // Slot 0001 was used in turn 1, so turn 2's reuse of it is ignored.
    expect(h.executed).toEqual([{ name: 'search', args: { q: 'a' } }, { name: 'echo', args: { v: 1 } }, { name: 'echo', args: { v: 3 } }]);
    expect(roles(result.conversation)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    const past = result.conversation[3]!.content!;
    expect(past).toContain(`System Notice: tool response for ${N}-0001 (search)\nstatus: ok\nduration_ms: 0\n<request>\n{"q":"a"}\n</request>\n<response>\nfound a\n</response>`);
    expect(past).toContain(`tool response for ${N}-0002 (echo)`);
    expect(result.conversation.some((m) => m.content?.includes('XML-NEXT'))).toBe(false);
    expect(toolEntries(result.accounting).map((e) => [e.command, e.source])).toEqual([
      ['search', 'xml'],
      ['echo', 'xml'],
      ['echo', 'xml'],
      ['agent__final_report_xml', 'xml'],
    ]);
    expect(h.logsOf('response_warning').map((l) => l.message)).toContain('ignored XML tag 0001: not an unused slot');
  });

  it('§11 XML: an unclosed final-report tag is accepted when the stop reason is a normal completion', async () => {
    const h = harness({ script: [reply.text(final('complete answer', 'markdown', false), { stopReason: 'end_turn' })], config: { toolTransport: 'xml-final' } });
    expect((await h.run()).finalReport).toMatchObject({ status: 'success', content: 'complete answer' });
  });

  it('§11 XML: an unclosed final-report tag cut off by length is retried', async () => {
    const h = harness({
      script: [reply.text(final('half an ans', 'markdown', false), { stopReason: 'length' }), reply.text(final('the whole answer'))],
      config: { toolTransport: 'xml-final' },
    });
    const result = await h.run();
    expect(h.model.requests).toHaveLength(2);
    expect(h.model.requests[1]!.messages.at(-1)!.content).toContain('the final report was cut off (stop reason length)');
    expect(result.finalReport).toMatchObject({ content: 'the whole answer' });
  });

  it('§11 XML: an unclosed final-report tag with an unknown stop reason is accepted with a warning', async () => {
    const h = harness({ script: [reply.text(final('answer', 'markdown', false), { stopReason: undefined })], config: { toolTransport: 'xml-final' } });
    const result = await h.run();
    expect(result.finalReport).toMatchObject({ status: 'success', content: 'answer' });
    expect(h.logsOf('response_warning')[0]!.message).toContain('not closed and the stop reason is unknown');
  });

  it('§11 XML: tags with another nonce, an unknown tool or no closing tag are ignored; nothing valid left means the retry logic applies', async () => {
    const h = harness({
      script: [
        reply.text(`<ai-agent-ffffffff-0001 tool="search">{}</ai-agent-ffffffff-0001>${slot('0001', 'delete_all', {})}<ai-agent-${N}-0002 tool="search">{"q":1}`),
        reply.text(final('ok')),
      ],
      tools,
      config: { toolTransport: 'xml' },
    });
    const result = await h.run();
    expect(h.executed).toEqual([]);
    expect(h.model.requests[1]!.messages.at(-1)!.content).toBe(EMPTY_RESPONSE_NOTICE);
    expect(result.finalReport).toMatchObject({ status: 'success', content: 'ok' });
  });

  it('§11 XML: the last valid FINAL tag wins, the format attribute is normalised, and a json payload is parsed and validated', async () => {
    const h = harness({
      script: [reply.text(`${final('{"a": 1}', 'text')} then ${final('{"a": 2}', 'json')}`)],
      config: { toolTransport: 'xml-final', expectedOutputFormat: 'json', outputSchema: { type: 'object', required: ['a'] } },
    });
    expect((await h.run()).finalReport).toMatchObject({ status: 'success', format: 'json', content_json: { a: 2 } });
  });

  it('§11 XML: a forced-final turn advertises only the final-report slot in XML-NEXT', async () => {
    const h = harness({ script: [reply.text(final('ok'))], tools, config: { toolTransport: 'xml', maxTurns: 1 } });
    await h.run();
    const [instruction, xmlNext] = h.model.requests[0]!.messages.slice(-2);
    expect(instruction!.content).toContain('This is the last turn.');
    expect(xmlNext!.content).toContain('No tools can be called now.');
    expect(xmlNext!.content).not.toContain('- search');
    expect(xmlNext!.content).toContain(`<ai-agent-${N}-FINAL tool="agent__final_report" format="markdown">`);
  });

  it('§11 XML: slot calls go through the same tool orchestrator: maxToolCallsPerTurn drops the excess with a notice in XML-PAST', async () => {
    const h = harness({
      script: [reply.text(['0001', '0002', '0003'].map((n) => slot(n, 'echo', { v: n })).join('')), reply.text(final('ok'))],
      tools,
      config: { toolTransport: 'xml', maxToolCallsPerTurn: 2 },
    });
    const result = await h.run();
    expect(h.executed.map((e) => e.args.v)).toEqual(['0001', '0002']);
    expect(result.conversation[3]!.content).toContain(`tool response for ${N}-0003 (echo)\nstatus: failed`);
    expect(result.conversation[3]!.content).toContain('too many tool calls in one turn');
  });

  it('§11 XML: native tool calls are refused in xml mode (XML is the only invocation path)', async () => {
    const h = harness({ script: [reply.tools({ name: 'search', args: { q: 'a' } }), reply.text(final('ok'))], tools, config: { toolTransport: 'xml' } });
    const result = await h.run();
    expect(h.executed).toEqual([]);
    expect(result.conversation[3]).toMatchObject({ role: 'tool', content: '(tool failed: tools are called through XML slots in this session)' });
  });
});
