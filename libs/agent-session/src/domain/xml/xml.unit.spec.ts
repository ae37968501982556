import { renderXmlNext, renderXmlPast } from './messages';
import { scanXml } from './scan';
import { findTags, slotName } from './tags';

const ctx = { nonce: 'n1', nextSlot: 4, slotTools: new Set(['search']), progressEnabled: true };

describe('§11 XML (domain)', () => {
  it('§11 XML: slots are NONCE-0001 style and tags are found by substring amid arbitrary text', () => {
    expect(slotName('n1', 4)).toBe('n1-0004');
    const text = 'blah <ai-agent-n1-0004 tool="search">{"q":1}</ai-agent-n1-0004> <not-a-tag> <ai-agent-n1-FINAL tool="agent__final_report" format="md">tail';
    expect(findTags(text, 'n1')).toEqual([
      { slot: '0004', attributes: { tool: 'search' }, payload: '{"q":1}', closed: true },
      { slot: 'FINAL', attributes: { tool: 'agent__final_report', format: 'md' }, payload: 'tail', closed: false },
    ]);
  });

  it('§11 XML: only unused slots at or after the next slot, for offered tools, are calls; PROGRESS is read when enabled', () => {
    const text = [
      '<ai-agent-n1-0003 tool="search">{}</ai-agent-n1-0003>',
      '<ai-agent-n1-0004 tool="search">{"q":"a"}</ai-agent-n1-0004>',
      '<ai-agent-n1-0004 tool="search">{"q":"dup"}</ai-agent-n1-0004>',
      '<ai-agent-n1-0005 tool="rm">{}</ai-agent-n1-0005>',
      '<ai-agent-n1-PROGRESS tool="agent__progress_report">halfway</ai-agent-n1-PROGRESS>',
    ].join('');
    const scan = scanXml(text, ctx);
    expect(scan.calls).toEqual([{ slot: 'n1-0004', slotNumber: 4, tool: 'search', payload: '{"q":"a"}' }]);
    expect(scan.progress).toBe('halfway');
    expect(scan.ignored).toEqual(['0003: not an unused slot', '0004: not an unused slot', "0005: tool 'rm' is not offered"]);
  });

  it('§11 XML: the unclosed final tag follows the stop reason (stop/end_turn/end/eos accept, length/max_tokens retry, unknown warns)', () => {
    const open = '<ai-agent-n1-FINAL tool="agent__final_report">answer';
    for (const stop of ['stop', 'end_turn', 'end', 'eos']) expect(scanXml(open, { ...ctx, stopReason: stop })).toMatchObject({ finalTruncated: false, finalUnclosedUnknownStop: false, final: { payload: 'answer' } });
    for (const stop of ['length', 'max_tokens']) expect(scanXml(open, { ...ctx, stopReason: stop }).finalTruncated).toBe(true);
    expect(scanXml(open, ctx).finalUnclosedUnknownStop).toBe(true);
    expect(scanXml(open, { ...ctx, stopReason: 'weird' }).finalUnclosedUnknownStop).toBe(true);
  });

  it('§11 XML: XML-NEXT carries nonce, tools with schemas and slot templates; XML-PAST carries slot, tool, status, duration, request, response', () => {
    const next = renderXmlNext({ nonce: 'n1', mode: 'xml', firstSlot: 4, slotCount: 3, tools: [{ name: 'search', description: 'Find', inputSchema: { type: 'object' } }], format: 'markdown', progress: false });
    expect(next).toContain('Session nonce: n1.');
    expect(next).toContain('(n1-0004 … n1-0006)');
    expect(next).toContain('<ai-agent-n1-0004 tool="TOOL_NAME">{"argument": "value"}</ai-agent-n1-0004>');
    expect(next).toContain('- search: Find\n  schema: {"type":"object"}');
    expect(next).toContain('<ai-agent-n1-FINAL tool="agent__final_report" format="markdown">');
    expect(renderXmlPast([{ slot: 'n1-0004', tool: 'search', status: 'failed', durationMs: 12, request: '{}', response: '(tool failed: timeout)' }])).toBe(
      'System Notice: tool response for n1-0004 (search)\nstatus: failed\nduration_ms: 12\n<request>\n{}\n</request>\n<response>\n(tool failed: timeout)\n</response>',
    );
  });
});
