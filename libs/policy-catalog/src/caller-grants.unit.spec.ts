import { approverOf, authorizeIngest, contentProblem, parseCallerGrants } from '@runledger/governance';
import { JSON_BOUNDS } from '@runledger/kernel';
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

  it('Probe finding (deep intake form): a JSON kind is nested at most the request bound (32 levels); a 20,000-deep form is ARTIFACT.TYPE_DENIED naming the bound, without overflowing', () => {
    const rule = grants.kinds.client_intake_form;
    const nested = (levels: number) => text(`${'{"a":'.repeat(levels - 1)}{"name":"Dana"}${'}'.repeat(levels - 1)}`);
    expect(contentProblem(rule, 'client_intake_form', 'application/json', nested(JSON_BOUNDS.maxDepth))).toBeNull();
    expect(contentProblem(rule, 'client_intake_form', 'application/json', nested(JSON_BOUNDS.maxDepth + 1))).toEqual({
      code: 'ARTIFACT.TYPE_DENIED', reason: `A client_intake_form may be nested at most ${JSON_BOUNDS.maxDepth} levels (objects and arrays); the content is nested deeper.`,
    });
    expect(contentProblem(rule, 'client_intake_form', 'application/json', text(`{"a":${'['.repeat(20_000)}${']'.repeat(20_000)}}`))).toMatchObject({ code: 'ARTIFACT.TYPE_DENIED' });
    // Its keys are the form's data: a field named constructor is a field (the request bound's key rule is for requests).
    expect(contentProblem(rule, 'client_intake_form', 'application/json', text('{"constructor":"Acme Builders"}'))).toBeNull();
  });

  it('Input bounds (a lone UTF-16 surrogate is not well-formed text): a JSON kind holding one, escaped in a value or a key, is ARTIFACT.TYPE_DENIED naming it; a surrogate pair passes', () => {
    const rule = grants.kinds.client_intake_form;
    expect(contentProblem(rule, 'client_intake_form', 'application/json', text('{"name":"\\ud800"}'))).toEqual({
      code: 'ARTIFACT.TYPE_DENIED', reason: 'A client_intake_form must hold well-formed text: property name is not well-formed text (a lone UTF-16 surrogate).',
    });
    expect(contentProblem(rule, 'client_intake_form', 'application/json', text('{"a":[{"\\udfffx":1}]}'))).toMatchObject({ code: 'ARTIFACT.TYPE_DENIED', reason: expect.stringContaining('is not well-formed text') });
    expect(contentProblem(rule, 'client_intake_form', 'application/json', text('{"name":"Dana \\ud83d\\ude00"}'))).toBeNull();
  });

  it('§4.5 promotion ticket: only the shipped approver (attorney-desk, acts_as ATTORNEY_ADMIN) may put tickets in and approves them; intake-desk does neither', () => {
    expect(grants.callers.approver).toBe('attorney-desk');
    expect(authorizeIngest(grants, { ...ask, caller: 'approver', agent_name: 'GOVERNANCE_AGENT', kind: 'promotion_ticket' })).toEqual({ role: 'attorney-desk' });
    expect(approverOf(grants, 'attorney-desk', 'promotion_ticket')).toEqual({ ok: true });
    expect(approverOf(grants, 'intake-desk', 'promotion_ticket')).toMatchObject({ ok: false });
    expect(approverOf(grants, 'retired-desk', 'promotion_ticket')).toMatchObject({ ok: false });
  });

  it('§4.5 promotion ticket: a grants file granting promotion_ticket to a role that does not act as ATTORNEY_ADMIN is refused', () => {
    const kinds = { promotion_ticket: { media_types: ['application/json'], max_bytes: 100, json_object: true } };
    const bad = parseCallerGrants({ version: 'v', kinds, roles: { desk: { cases: ['case-*'], agents: { GOVERNANCE_AGENT: ['promotion_ticket'] } } }, callers: {} });
    expect(!bad.ok && bad.problems).toEqual([expect.stringContaining('must declare acts_as: ATTORNEY_ADMIN')]);
    const other = parseCallerGrants({ version: 'v', kinds, roles: { desk: { acts_as: 'GOVERNANCE_AGENT', cases: ['case-*'], agents: { GOVERNANCE_AGENT: ['promotion_ticket'] } } }, callers: {} });
    expect(other.ok).toBe(false);
  });

  it('Issue 26 a bad grants file is refused with every problem named', () => {
    const bad = parseCallerGrants({ version: 'v', kinds: { a: { media_types: ['x/y'], max_bytes: 9 * 1024 * 1024 } }, roles: { r: { cases: ['a*b'], agents: { X: ['nope'] } } }, callers: { c: 'missing' } });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.problems).toEqual([
      expect.stringContaining('above the store'), expect.stringContaining('kind nope'), expect.stringContaining('may only end in *'), expect.stringContaining('role missing'),
    ]);
  });
});
