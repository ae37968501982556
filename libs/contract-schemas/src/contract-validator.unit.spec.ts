import fs from 'node:fs';
import path from 'node:path';
import { compileSchema, contractValidator } from './contract-validator';
import { CONTRACT_SCHEMAS } from './schemas.generated';

const PROTO = path.resolve(__dirname, '..', '..', '..', 'proto-contracts');

function schemaFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? schemaFiles(path.join(dir, d.name)) : d.name.endsWith('.schema.json') ? [path.join(dir, d.name)] : []);
}

describe('Issue 21 one validator pipe: the shared contract validator', () => {
  it('Issue 21: loads every schema under proto-contracts/schemas once, and each compiles by its path', () => {
    const onDisk = schemaFiles(path.join(PROTO, 'schemas')).map((f) => path.relative(PROTO, f).split(path.sep).join('/')).sort();
    expect(CONTRACT_SCHEMAS.map((s) => s.path).sort()).toEqual(onDisk);
    for (const { path: p } of CONTRACT_SCHEMAS) expect(typeof contractValidator(p)).toBe('function');
  });

  it('Issue 21: a contract is the same compiled validator by $id and by path, and a $ref across files resolves', () => {
    const byId = contractValidator('https://runledger.dev/schemas/governance/artifact_ref.schema.json');
    expect(contractValidator('schemas/governance/artifact_ref.schema.json')).toBe(byId);
    const manifest = contractValidator('https://runledger.dev/schemas/governance/export_bundle.schema.json#/definitions/manifest');
    expect(manifest({})).toBe(false);
  });

  it('Issue 21: reports every problem of a value (allErrors), and an unknown schema is a clear error', () => {
    const validate = contractValidator('schemas/campaigns/campaign-answer-request.schema.json');
    expect(validate({ unexpected: 1 })).toBe(false);
    expect((validate.errors ?? []).length).toBeGreaterThan(1);
    expect(() => contractValidator('schemas/nope.schema.json')).toThrow('no contract schema schemas/nope.schema.json in proto-contracts');
  });

  it('Issue 21: `defaults` validators fill schema defaults in; plain ones never change the value', () => {
    const schema = { type: 'object', properties: { flag: { type: 'boolean', default: true } } };
    const filled: Record<string, unknown> = {};
    expect(compileSchema(schema, 'defaults')(filled)).toBe(true);
    expect(filled).toEqual({ flag: true });
    const untouched: Record<string, unknown> = {};
    expect(compileSchema(schema)(untouched)).toBe(true);
    expect(untouched).toEqual({});
  });

  it('Issue 21: ad-hoc schemas with the same $id compile one after another (nothing piles up), a broken one throws', () => {
    const a = compileSchema({ $id: 'https://x.test/s', type: 'string' });
    const b = compileSchema({ $id: 'https://x.test/s', type: 'number' });
    expect([a('t'), b('t'), b(1)]).toEqual([true, false, true]);
    expect(() => compileSchema({ type: 'nonsense' })).toThrow();
  });

  it('a link a person may follow is http: or https: only: format http-url refuses javascript:, data:, file:, relative URLs, a user name before the host, no host and control characters', () => {
    const validate = compileSchema({ type: 'string', format: 'http-url' });
    for (const ok of ['https://example.org/in/jane', 'http://example.org', 'HTTPS://Example.org/x?y=1#z']) expect([ok, validate(ok)]).toEqual([ok, true]);
    for (const bad of ['javascript:alert(1)', 'JavaScript://%0aalert(1)', 'data:text/html,<b>x</b>', 'file:///etc/passwd', '/in/jane', 'https://', ' https://example.org', 'https://exa mple.org',
      'https://linkedin.com@evil.example/in/jane', 'https://user:pw@example.org', 'https:///evil.example', 'https://example.org/\u0000x', 'https://example.org/\u007f']) {
      expect([bad, validate(bad)]).toEqual([bad, false]);
    }
  });
});
