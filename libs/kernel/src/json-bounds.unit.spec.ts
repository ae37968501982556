import { JSON_BOUNDS, jsonNestingProblem, jsonShape, jsonShapeProblems } from './json-bounds';

const nested = (levels: number): unknown => (levels === 0 ? 1 : [nested(levels - 1)]);

describe('Issue 10 bounded input: one walk finds both bounds, named in the words of validation details', () => {
  it('a value nested at the bound passes; one level deeper is named by its path, the walk going no deeper (10k levels do not overflow)', () => {
    expect(jsonShape({ a: nested(JSON_BOUNDS.maxDepth - 1) })).toEqual({ tooDeep: null, prototypeKeys: [] });
    const deep = jsonShape({ a: nested(JSON_BOUNDS.maxDepth) });
    expect(deep.tooDeep).toBe(`a${'.0'.repeat(JSON_BOUNDS.maxDepth - 1)}`);
    expect(jsonShapeProblems(deep)).toEqual([`property ${deep.tooDeep} is nested deeper than 32 levels`]);
    expect(jsonShape(JSON.parse(`{"m":${'['.repeat(10_000)}${']'.repeat(10_000)}}`)).tooDeep).toMatch(/^m(\.0)+$/);
  });

  it('every key named like an Object.prototype member or `prototype` is found, at any depth, by its path (own keys only, values not read as keys)', () => {
    const body = JSON.parse('{"__proto__":{"admin":true},"a":[{"constructor":{}},{"ok":"toString"}],"p":{"prototype":1,"toString":2,"hasOwnProperty":3},"valueOf":4}');
    expect(jsonShape(body).prototypeKeys).toEqual(['__proto__', 'a.0.constructor', 'p.prototype', 'p.toString', 'p.hasOwnProperty', 'valueOf']);
    expect(jsonShapeProblems(jsonShape({ p: { toString: 1 } }))).toEqual(['property p.toString should not exist']);
    expect(jsonShape({ note: 'constructor', list: ['__proto__'] })).toEqual({ tooDeep: null, prototypeKeys: [] });
  });

  it('Probe: a string or key holding a lone UTF-16 surrogate (JSON can escape one, UTF-8 cannot hold it) is named by its path; a well-formed pair passes', () => {
    const body = JSON.parse('{"user_id":"w\\ud801","ok":"\\ud83d\\ude00","list":["a"]}');
    expect(jsonShape(body).illFormed).toBe('user_id');
    expect(jsonShapeProblems(jsonShape(body))).toEqual(['property user_id is not well-formed text (a lone UTF-16 surrogate)']);
    expect(jsonShape(JSON.parse('{"a":[{"\\udfffk":1}]}')).illFormed).toBe('a.0.\udfffk');
    expect(jsonShape({ ok: '\ud83d\ude00 fine' }).illFormed).toBeUndefined();
    // Stored content (keys are data) is walked for nesting only.
    expect(jsonShape(body, { keys: false }).illFormed).toBeUndefined();
  });

  it('JSON content whose keys are data (an intake form) is held to the nesting bound only', () => {
    expect(jsonNestingProblem(JSON.parse('{"constructor":{"prototype":{"toString":1}}}'))).toBeNull();
    expect(jsonNestingProblem({ form: nested(JSON_BOUNDS.maxDepth) })).toMatch(/nested deeper than 32 levels/);
  });
});
