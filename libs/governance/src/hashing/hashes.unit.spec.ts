import { createHash } from 'node:crypto';
import {
  canonicalJson,
  CanonicalJsonError,
  isVolatileKey,
  normalizeForHash,
  requestHashSha256,
  responseHashSha256,
  sha256Hex,
  type AgentRequestHashInput,
  type ArtifactRef,
} from '../index';

const transcript: ArtifactRef = {
  artifact_id: 'art-1',
  sha256: 'a'.repeat(64),
  size_bytes: 120,
  media_type: 'text/plain',
  kind: 'transcript',
  case_id: 'case-1',
  name: 'interview-1.txt',
};
const request: AgentRequestHashInput = {
  agent_name: 'MAPPING_AGENT',
  case_id: 'case-1',
  run_id: 'run-1',
  parent_run_id: 'run-0',
  root_run_id: 'run-0',
  correlation_id: 'corr-1',
  policy_versions: { lanes: 'lanes-2026.11.1', roles: 'roles-2026.11.1' },
  taxonomy_versions: { coa: 'coa-3' },
  input_artifacts: [transcript],
  parameters: { focus: ['breach', 'damages'], depth: 2 },
};

describe('§2 canonical JSON', () => {
  test('§2 hashing normalization: key order never changes the text; arrays keep their order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, 1], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,1]},"b":1}');
    expect(canonicalJson({ a: { c: 'x', d: [3, 1] }, b: 1 })).toBe(canonicalJson({ b: 1, a: { d: [3, 1], c: 'x' } }));
    expect(canonicalJson([1, 3])).not.toBe(canonicalJson([3, 1]));
  });

  test('§2 hashing normalization: no whitespace, undefined members dropped, undefined array slots kept as null', () => {
    expect(canonicalJson({ a: undefined, b: [undefined, ' x '], c: null })).toBe('{"b":[null," x "],"c":null}');
  });

  test('§2 hashing normalization: keys sort by UTF-16 code units and strings escape as JSON', () => {
    expect(canonicalJson({ é: 1, Z: 2, a: 3, '\u2028': 4 })).toBe('{"Z":2,"a":3,"é":1,"\u2028":4}');
    expect(canonicalJson('line\nbreak "q"')).toBe('"line\\nbreak \\"q\\""');
  });

  test('§2 hashing normalization: any number of keys in any order gives the UTF-16 order (astral and BMP keys mixed)', () => {
    const keys = ['\ud83d\ude00', '\uffff', 'b', 'A', 'é', 'a', '_', '10', '9', ''];
    const expected = (ks: string[]) => `{${[...ks].sort().map((k) => `${JSON.stringify(k)}:${JSON.stringify(k)}`).join(',')}}`;
    const many = Array.from({ length: 40 }, (_, i) => `k${(i * 7919) % 40}`).concat(keys);
    for (const set of [keys, [...keys].reverse(), many, [...many].reverse()]) {
      expect(canonicalJson(Object.fromEntries(set.map((k) => [k, k])))).toBe(expected(set));
    }
  });

  test.each([
    ['NaN', { n: NaN }],
    ['Infinity', [Infinity]],
    ['a bigint', { n: BigInt(1) }],
    ['a function', { f: () => 1 }],
    ['a Date', { at: new Date(0) }],
    ['a typed array', { b: new Uint8Array(2) }],
  ])('§2.1 parameters must be hashable: %s is refused, not coerced', (_label, value) => {
    expect(() => canonicalJson(value)).toThrow(CanonicalJsonError);
  });

  test('§2.1 parameters must be hashable: a cycle is refused; a shared (non-cyclic) object is fine', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow('$.self: cycle');
  });

  test('Issue 22 ledger CPU: the text is byte for byte what every release hashed (escapes, surrogates, numbers, integer-like keys)', () => {
    const value = { '10': 1, '9': [undefined, 'x\u2028y', '\ud800', 'é"\\\n\t\u0000', -0, 1e21, 5e-7, 0.1, true, false, null], b: undefined, 'k"\\': { '': {}, z: [] }, ñ: 'ü', '\ud83d\ude00': '\u007f' };
    const text = canonicalJson(value);
    expect(text).toBe('{"10":1,"9":[null,"x\u2028y","\\ud800","é\\"\\\\\\n\\t\\u0000",0,1e+21,5e-7,0.1,true,false,null],"k\\"\\\\":{"":{},"z":[]},"ñ":"ü","\ud83d\ude00":"\u007f"}');
    expect(sha256Hex(text)).toBe('7ecd5c6bbdba986104cc8ee459e6446ed9de0c2aaac37b24bd6c1593374eb58b');
  });

  test('§2.1 parameters must be hashable: a refused value is named by its way from the root', () => {
    expect(() => canonicalJson({ a: [1, { b: NaN }] })).toThrow('$.a[1].b: non-finite number NaN');
    expect(() => canonicalJson({ z: [{}, [new Date(0)]] })).toThrow('$.z[1][0]: only plain objects are JSON data');
    expect(() => canonicalJson(undefined)).toThrow('$: undefined is not JSON data');
  });
});

describe('§2 volatile timestamps', () => {
  test('§2 hashing normalization: timestamp, ts, now and every *_at key are dropped at any depth', () => {
    const value = {
      timestamp: 1, ts: 2, now: 3, created_at: 'a', updated_at: 'b', requested_at: 'c', recorded_at: 'd',
      keep: { at: 'kept', status: 'open', nested: [{ occurred_at: 'x', format: 'y' }] },
    };
    expect(normalizeForHash(value)).toEqual({ keep: { at: 'kept', status: 'open', nested: [{ format: 'y' }] } });
  });

  test('§2 hashing normalization: the rule is exact and case-sensitive (what is not volatile)', () => {
    expect(['created_at', 'ts', 'now', 'timestamp', 'x_at'].every(isVolatileKey)).toBe(true);
    expect(['_at', 'at', 'createdAt', 'Timestamp', 'status', 'data', 'attachment'].some(isVolatileKey)).toBe(false);
  });
});

describe('§2.1 request_hash_sha256', () => {
  test('§2.1 request_hash: run ids, correlation id, input ids/names and timestamps do not change the hash', () => {
    const retried = {
      ...request,
      run_id: 'run-7',
      parent_run_id: 'run-6',
      root_run_id: 'run-6',
      correlation_id: undefined,
      requested_at: '2026-11-22T10:00:00Z',
      input_artifacts: [{ ...transcript, artifact_id: 'art-copy', name: 'copy.txt' }],
      parameters: { depth: 2, focus: ['breach', 'damages'], requested_at: 'now' },
    };
    expect(requestHashSha256(retried)).toBe(requestHashSha256(request));
    expect(requestHashSha256(request)).toMatch(/^[0-9a-f]{64}$/);
  });

  test.each<[string, Partial<AgentRequestHashInput>]>([
    ['agent_name', { agent_name: 'INTAKE_AGENT' }],
    ['case_id', { case_id: 'case-2' }],
    ['policy_versions', { policy_versions: { lanes: 'lanes-2026.12.1', roles: 'roles-2026.11.1' } }],
    ['taxonomy_versions', { taxonomy_versions: { coa: 'coa-4' } }],
    ['input bytes', { input_artifacts: [{ ...transcript, sha256: 'b'.repeat(64) }] }],
    ['input kind', { input_artifacts: [{ ...transcript, kind: 'interview_notes' }] }],
    ['parameters', { parameters: { focus: ['damages', 'breach'], depth: 2 } }],
  ])('§2.1 request_hash: a different %s is a different request', (_field, change) => {
    expect(requestHashSha256({ ...request, ...change })).not.toBe(requestHashSha256(request));
  });

  test('§2.1 request_hash: the hash is sha256 over the documented canonical form', () => {
    const expected = createHash('sha256')
      .update(
        '{"agent_name":"MAPPING_AGENT","case_id":"case-1","input_artifacts":[{"kind":"transcript","media_type":"text/plain","sha256":"' +
          'a'.repeat(64) +
          '"}],"parameters":{"depth":2,"focus":["breach","damages"]},"policy_versions":{"lanes":"lanes-2026.11.1","roles":"roles-2026.11.1"},"taxonomy_versions":{"coa":"coa-3"}}',
      )
      .digest('hex');
    expect(requestHashSha256(request)).toBe(expected);
  });
});

describe('§2.2 response_hash_sha256', () => {
  test('§2.2 response_hash: equal payloads at different times hash the same; different content does not', () => {
    const a = { outcome: 'success', output_artifacts: [transcript], created_at: '2026-11-22T10:00:00Z' };
    const b = { created_at: '2026-11-23T09:00:00Z', output_artifacts: [transcript], outcome: 'success' };
    expect(responseHashSha256(a)).toBe(responseHashSha256(b));
    expect(responseHashSha256({ ...a, outcome: 'failure' })).not.toBe(responseHashSha256(a));
  });

  test('§2 sha256Hex: matches an independent sha256 for text and bytes', () => {
    expect(sha256Hex('runledger')).toBe(createHash('sha256').update('runledger').digest('hex'));
    expect(sha256Hex(new Uint8Array([0, 255]))).toBe(createHash('sha256').update(Buffer.from([0, 255])).digest('hex'));
  });
});
