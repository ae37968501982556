import { closeDanglingBraces, extractFirstObject, parseToolArguments } from './tool-args';

describe('Tool request parsing and repair (pipeline)', () => {
  it('Tool request parsing: valid JSON takes the native JSON.parse path with no repair steps', () => {
    expect(parseToolArguments('{"a":1}')).toEqual({ ok: true, value: { a: 1 }, repairs: [] });
  });

  it('Tool request parsing: jsonrepair fixes single quotes, trailing commas and unquoted keys', () => {
    const r = parseToolArguments("{a: 'b', c: [1,2,],}");
    expect(r).toMatchObject({ ok: true, value: { a: 'b', c: [1, 2] }, repairs: ['jsonrepair'] });
  });

  it('Tool request parsing: guarded fixes extract the first object from surrounding prose and close dangling braces', () => {
    expect(extractFirstObject('Sure! {"q": "a {b}"} and {"other": 1}')).toBe('{"q": "a {b}"}');
    expect(closeDanglingBraces('{"a": {"b": [1, 2')).toBe('{"a": {"b": [1, 2]}}');
    expect(parseToolArguments('call with {"q": "x"} please')).toMatchObject({ ok: true, value: { q: 'x' } });
    expect(parseToolArguments('{"a": {"b": [1, 2')).toMatchObject({ ok: true, value: { a: { b: [1, 2] } } });
  });

  it('Tool request parsing: a double-encoded object is unwrapped; empty arguments read as {}', () => {
    expect(parseToolArguments(JSON.stringify(JSON.stringify({ a: 1 })))).toMatchObject({ ok: true, value: { a: 1 }, repairs: ['unwrapped double-encoded JSON string'] });
    expect(parseToolArguments('  ')).toMatchObject({ ok: true, value: {} });
  });

  it('Tool request parsing: unparsable text and non-objects fail with the raw payload kept in full', () => {
    const raw = 'definitely not json';
    expect(parseToolArguments(raw)).toMatchObject({ ok: false, raw });
    expect(parseToolArguments('[1,2]')).toEqual({ ok: false, error: 'arguments must be a JSON object', raw: '[1,2]' });
  });
});
