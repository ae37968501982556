import { acceptFinalReportArgs, acceptReportText } from './accept';
import { compileSchema } from './json-schema';
import { validateWithRepair } from './json-repair-loop';
import { finalReportToolSpec } from './tool-spec';

const check = (schema: Record<string, unknown>) => {
  const c = compileSchema(schema);
  if (!c.ok) throw new Error(c.error);
  return c.check;
};
const objectRules = (format: string) => ({ format, check: check({ type: 'object' }) });

describe('Final report (domain)', () => {
  it('Format Enforcement: the tool schema pins format with const and names the content field for the format', () => {
    expect(finalReportToolSpec('json', { type: 'object', required: ['x'] }).inputSchema).toMatchObject({
      properties: { format: { const: 'json' }, content_json: { type: 'object', required: ['x'] } },
      required: ['format', 'content_json'],
    });
    expect(finalReportToolSpec('slack-block-kit').inputSchema).toMatchObject({ required: ['format', 'messages'] });
    expect(finalReportToolSpec('markdown').inputSchema).toMatchObject({
      properties: { encoding: { enum: ['raw', 'base64'] } },
      required: ['format', 'report_content'],
    });
  });

  it('Final report: encoding must be raw or base64; invalid base64 is a failure', () => {
    expect(acceptFinalReportArgs({ format: 'markdown', report_content: 'x', encoding: 'hex' }, objectRules('markdown'))).toMatchObject({ ok: false });
    expect(acceptFinalReportArgs({ format: 'markdown', report_content: '%%%', encoding: 'base64' }, objectRules('markdown'))).toEqual({
      ok: false,
      error: 'report_content is not valid base64-encoded UTF-8',
    });
  });

  it('Final report: the content_json repair loop parses stringified nested JSON where the schema complains, a few levels deep, then gives up', () => {
    const schema = check({
      type: 'object',
      properties: { a: { type: 'object', properties: { b: { type: 'array' } }, required: ['b'] }, note: { type: 'string' } },
      required: ['a'],
    });
    const nested = JSON.stringify({ b: JSON.stringify([1, 2]) });
    expect(validateWithRepair({ a: nested, note: '{"stays": "a string"}' }, schema)).toEqual({
      ok: true,
      value: { a: { b: [1, 2] }, note: '{"stays": "a string"}' },
      repairs: ['parsed stringified JSON at /a', 'parsed stringified JSON at /a/b'],
    });
    expect(validateWithRepair(JSON.stringify({ a: { b: [] } }), schema)).toMatchObject({ ok: true, value: { a: { b: [] } } });
    expect(validateWithRepair({ a: 'not json' }, schema)).toMatchObject({ ok: false, error: expect.stringContaining('/a must be object') });
  });

  it('§11 XML layer 2: sub-agent payloads pass through untouched, slack needs messages, text formats use the raw content', () => {
    expect(acceptReportText('  <raw> {not json  ', objectRules('sub-agent'))).toMatchObject({ ok: true, body: { content: '  <raw> {not json  ' } });
    expect(acceptReportText('[{"blocks": []}]', objectRules('slack-block-kit'))).toMatchObject({ ok: true, body: { messages: [{ blocks: [] }] } });
    expect(acceptReportText('{"messages": [{"text": "hi"}]}', objectRules('slack-block-kit'))).toMatchObject({ ok: true, body: { messages: [{ text: 'hi' }] } });
    expect(acceptReportText('plain words', objectRules('slack-block-kit'))).toMatchObject({ ok: false });
    expect(acceptReportText('\n# Title\n', objectRules('markdown'))).toMatchObject({ ok: true, body: { content: '# Title' } });
  });
});
