import { authorizeIngest, contentProblem, parseCallerGrants } from '@runledger/governance';
import { loadCallerGrants } from './caller-grants';

const grants = loadCallerGrants();
const ask = { caller: 'caller', case_id: 'case-7', agent_name: 'INTAKE_AGENT', kind: 'client_intake_form', media_type: 'application/json' };
const text = (s: string) => new TextEncoder().encode(s);

describe('Issue 26 caller grants (policy/callers.yaml)', () => {
  it('Issue 26 the shipped grants load: caller has the intake-desk role over case-* cases', () => {
    expect(grants.callers.caller).toBe('intake-desk');
    expect(authorizeIngest(grants, ask)).toEqual({ role: 'intake-desk' });
  });

  it('Issue 26 a case outside the role is CASE.NOT_GRANTED, and so is any case for a caller with no role', () => {
    expect(authorizeIngest(grants, { ...ask, case_id: 'tenant-b-1' })).toMatchObject({ code: 'CASE.NOT_GRANTED' });
    expect(authorizeIngest(grants, { ...ask, caller: 'stranger' })).toMatchObject({ code: 'CASE.NOT_GRANTED' });
  });

  it('Issue 26 a kind the role may not supply to that agent is ARTIFACT.KIND_DENIED', () => {
    expect(authorizeIngest(grants, { ...ask, kind: 'promotion_ticket' })).toMatchObject({ code: 'ARTIFACT.KIND_DENIED' });
    expect(authorizeIngest(grants, { ...ask, agent_name: 'GOVERNANCE_AGENT' })).toMatchObject({ code: 'ARTIFACT.KIND_DENIED' });
  });

  it('Issue 26 content is checked against its kind: media type, size, JSON object', () => {
    const rule = grants.kinds.client_intake_form;
    expect(contentProblem(rule, 'client_intake_form', 'application/json; charset=utf-8', text('{"a":1}'))).toBeNull();
    expect(contentProblem(rule, 'client_intake_form', 'text/plain', text('{"a":1}'))).toMatchObject({ code: 'ARTIFACT.TYPE_DENIED' });
    expect(contentProblem(rule, 'client_intake_form', 'application/json', text('[1]'))).toMatchObject({ code: 'ARTIFACT.TYPE_DENIED' });
    expect(contentProblem(rule, 'client_intake_form', 'application/json', text('not json'))).toMatchObject({ code: 'ARTIFACT.TYPE_DENIED' });
    expect(contentProblem(rule, 'client_intake_form', 'application/json', new Uint8Array(rule.max_bytes + 1))).toMatchObject({ code: 'ARTIFACT.TOO_LARGE' });
  });

  it('Issue 26 a bad grants file is refused with every problem named', () => {
    const bad = parseCallerGrants({ version: 'v', kinds: { a: { media_types: ['x/y'], max_bytes: 9 * 1024 * 1024 } }, roles: { r: { cases: ['a*b'], agents: { X: ['nope'] } } }, callers: { c: 'missing' } });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.problems).toEqual([
      expect.stringContaining('above the store'), expect.stringContaining('kind nope'), expect.stringContaining('may only end in *'), expect.stringContaining('role missing'),
    ]);
  });
});
