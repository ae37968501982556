import { registerProfiles, subAgentToolName, validateAgentProfile } from './profile';

const valid = { id: 'researcher', version: '1', role: 'SESSION_AGENT', lane: 'TOOL_X', targets: ['p/m'], tools: ['web__lookup'] };

describe('agent profiles', () => {
  it('INV-AGT-001: a valid profile registers; an invalid one is rejected with descriptive errors', () => {
    expect(validateAgentProfile(valid)).toMatchObject({ ok: true, profile: valid });
    const bad = validateAgentProfile({ ...valid, id: 'Bad Id', targets: ['nomodel'], session: { maxTurns: 0 }, extra: 1 });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.errors).toEqual(expect.arrayContaining([
      "unknown field 'extra'",
      'id must be lowercase alphanumeric with hyphens (at most 64 characters)',
      "target 'nomodel' is not of the form provider/model",
      expect.stringContaining('session.maxTurns must be a positive integer'),
    ]));
    expect(validateAgentProfile({ ...valid, lane: undefined })).toMatchObject({ ok: false, errors: ['a profile with tools needs a lane'] });
  });

  it('Issue 25 honest outcomes: an invalid profile is refused alone, with its errors, and the other profiles register', () => {
    const all = registerProfiles([{ source: 'a.json', raw: valid }, { source: 'b.json', raw: { ...valid, id: 'other', role: 'lower' } }, { source: 'c.json', raw: { ...valid, id: 'writer' } }]);
    expect(all).toEqual({ profiles: [valid, { ...valid, id: 'writer' }], refused: [{ source: 'b.json', errors: ['role must be an upper-case role name'] }] });
  });

  it('INV-AGT-001 / §2 exit 5: an output schema that does not compile is a schema error', () => {
    const r = validateAgentProfile({ ...valid, session: { outputSchema: { type: 'nonsense' } } });
    expect(r).toMatchObject({ ok: false, schemaErrors: true });
  });

  it('INV-AGT-002: a second definition of an id is refused, not merged', () => {
    const r = registerProfiles([{ source: 'a.json', raw: valid }, { source: 'b.json', raw: { ...valid, version: '2' } }]);
    expect(r).toEqual({ profiles: [valid], refused: [{ source: 'b.json', errors: ["agent id 'researcher' is already registered by a.json"] }] });
    expect(registerProfiles([{ source: 'a.json', raw: valid }, { source: 'b.json', raw: { ...valid, id: 'writer' } }])).toMatchObject({ refused: [] });
    expect(subAgentToolName('web-writer')).toBe('agent__web_writer');
  });
});
