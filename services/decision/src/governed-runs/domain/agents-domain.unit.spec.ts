import { loadPolicy } from '@runledger/governance';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_PROFILES, createAgentRegistry, GOVERNED_AGENTS, profileIdOf, profileOf } from './agents';
import { assessIntake } from './intake';
import { draftInterviewNotes } from './interview';
import { mapCausesOfAction, mappingSourcesOf } from './mapping';
import { childInputs } from './orchestration';
import { responseOf } from './response';
import { childSpec, deriveRunId, hashRequest } from './run-spec';
import { decideAgentStart } from './start-authz';

const dir = join(__dirname, '..', '..', '..', '..', '..', 'policy', 'contract-v1');
const policy = loadPolicy({ lanesYaml: readFileSync(join(dir, 'lanes.yaml'), 'utf8'), rolesYaml: readFileSync(join(dir, 'roles.yaml'), 'utf8') });
const ref = (kind: string, id = `art-${kind}`, case_id = 'case-1') => ({ artifact_id: id, sha256: 'a'.repeat(64), size_bytes: 10, media_type: 'application/json', kind, case_id });

describe('governed agents: profiles and registry (INV-AGT-001/002)', () => {
  it('registers the six agents under lowercase-hyphen ids with a non-empty workflow each', () => {
    const registry = createAgentRegistry();
    for (const agent of GOVERNED_AGENTS) {
      expect(profileIdOf(agent)).toMatch(/^[a-z]+(-[a-z]+)*$/);
      expect(profileOf(registry, agent)?.name).toBe(agent);
      expect(AGENT_PROFILES[agent].workflow!.length).toBeGreaterThan(0);
    }
    expect(profileIdOf('INTAKE_AGENT')).toBe('intake-agent');
  });
});

describe('start authorisation (§1 authz_decision at run start)', () => {
  const base = { registered: true, case_id: 'case-1', input_artifacts: [] };
  it('allows each governed agent under the shipped policy and records the versions', () => {
    for (const agent of GOVERNED_AGENTS) expect(decideAgentStart(policy, { ...base, agent_name: agent })).toMatchObject({ decision: 'allow', policy_versions: policy.versions });
  });
  it('denies an unknown agent, a known role that is no governed agent, and another case’s input', () => {
    expect(decideAgentStart(policy, { ...base, agent_name: 'NOPE_AGENT' })).toMatchObject({ decision: 'deny', code: 'AGENT.UNKNOWN' });
    expect(decideAgentStart(policy, { ...base, agent_name: 'TASK_ASSISTANT' })).toMatchObject({ decision: 'deny', code: 'AGENT.UNKNOWN' });
    expect(decideAgentStart(policy, { ...base, agent_name: 'MAPPING_AGENT', input_artifacts: [ref('transcript', 'x', 'case-2')] })).toMatchObject({ decision: 'deny', code: 'CASE.CROSS_CASE_DENIED' });
  });
  it('denies an agent whose role lacks a lane it works through, naming the versions', () => {
    const lanesYaml = readFileSync(join(dir, 'lanes.yaml'), 'utf8').replace(/version: lanes-[\w.]+/, 'version: lanes-test').replace('allowed_callers: [INTERVIEW_AGENT, INTAKE_AGENT]', 'allowed_callers: [INTERVIEW_AGENT]');
    const rolesYaml = readFileSync(join(dir, 'roles.yaml'), 'utf8').replace(/version: roles-[\w.]+/, 'version: roles-test').replace('lanes: [WRITE_INTAKE_ARTIFACTS]', 'lanes: []');
    const narrowed = loadPolicy({ lanesYaml, rolesYaml });
    expect(decideAgentStart(narrowed, { ...base, agent_name: 'INTAKE_AGENT' })).toEqual({
      decision: 'deny', action: 'agent.run.start', code: 'LANE.CALLER_DENIED', reason: 'INTAKE_AGENT may not use lane WRITE_INTAKE_ARTIFACTS under lanes lanes-test.',
      policy_versions: { lanes: 'lanes-test', roles: 'roles-test' },
    });
  });
});

describe('§2 request hash and run ids', () => {
  const request = { agent_name: 'INTAKE_AGENT', case_id: 'case-1', policy_versions: policy.versions, input_artifacts: [ref('client_intake_form')], parameters: { a: 1, b: { c: 2, requested_at: '2026-01-01T00:00:00Z' } } };
  it('is stable across key order and volatile timestamps, and changes with content', () => {
    const reordered = { parameters: { b: { requested_at: '2030-05-05T00:00:00Z', c: 2 }, a: 1 }, input_artifacts: request.input_artifacts, policy_versions: policy.versions, case_id: 'case-1', agent_name: 'INTAKE_AGENT' };
    expect(hashRequest(reordered)).toBe(hashRequest(request));
    expect(hashRequest({ ...request, parameters: { a: 2 } })).not.toBe(hashRequest(request));
    expect(deriveRunId('case-1', undefined, hashRequest(request))).toBe(deriveRunId('case-1', undefined, hashRequest(reordered)));
    expect(deriveRunId('case-1', 'parent', hashRequest(request))).not.toBe(deriveRunId('case-1', undefined, hashRequest(request)));
  });
  it('a child run inherits root, correlation and pinned versions, with an id derived from parent and step', () => {
    const parent = { ...request, run_id: '00000000-0000-4000-8000-000000000001', root_run_id: '00000000-0000-4000-8000-000000000001', correlation_id: 'corr', request_hash_sha256: 'h' };
    const child = childSpec(parent, 'intake', 'INTAKE_AGENT', [], {});
    expect(child).toMatchObject({ parent_run_id: parent.run_id, root_run_id: parent.root_run_id, correlation_id: 'corr', policy_versions: policy.versions });
    expect(childSpec(parent, 'intake', 'INTAKE_AGENT', [], {}).run_id).toBe(child.run_id);
    expect(childSpec(parent, 'mapping', 'INTAKE_AGENT', [], {}).run_id).not.toBe(child.run_id);
  });
});

describe('INTAKE_AGENT triage', () => {
  const form = { name: 'Dana Reyes', contact: { email: 'dana@example.com' }, matter_description: 'My employer fired me after I reported unpaid wages.', incident_date: '2026-03-02', opposing_party: 'Acme Widgets Inc' };
  it('accepts a complete form and extracts the client and the opposing party', () => {
    const a = assessIntake(form, '2026-11-22');
    expect(a.summary).toMatchObject({ decision: 'accept', flags: [], missing_fields: [] });
    expect(a.entities).toEqual([{ entity_type: 'person', name: 'Dana Reyes', role: 'client' }, { entity_type: 'organization', name: 'Acme Widgets Inc', role: 'opposing_party' }]);
  });
  it('lists missing fields, flags old or out-of-scope matters, and refuses a non-object form', () => {
    expect(assessIntake({ name: 'X' }, '2026-11-22').checklist.missing.map((m) => m.field)).toEqual(['contact', 'matter_description', 'incident_date', 'opposing_party']);
    expect(assessIntake({ ...form, incident_date: '2015-01-01' }, '2026-11-22').summary).toMatchObject({ decision: 'reject', flags: ['possibly_time_barred'] });
    expect(assessIntake({ ...form, matter_description: 'I need help with my divorce' }, '2026-11-22').summary.decision).toBe('reject');
    expect(assessIntake({ ...form, incident_date: '2026-02-30' }, '2026-11-22').summary).toMatchObject({ decision: 'needs-more-info', flags: ['invalid_incident_date'] });
    expect(() => assessIntake([], '2026-11-22')).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
  });
});

describe('INTERVIEW_AGENT notes and MAPPING_AGENT maps', () => {
  const segments = [
    { index: 0, speaker: 'interviewer', start_ms: 0, end_ms: 1, text: 'What happened?' },
    { index: 1, speaker: 'client', start_ms: 2, end_ms: 3, text: 'I was fired by Acme Widgets Inc after I complained. They never paid the invoice we agreed in the contract. I have the emails from my manager.' },
  ];
  it('groups the client’s sentences by topic and leaves the interviewer out', () => {
    const notes = draftInterviewNotes(segments, [{ prompt_id: 'p5-evidence', topic: 'evidence', text: '?' }]);
    expect(notes.client_turns).toBe(1);
    expect(notes.notes.find((n) => n.topic === 'evidence')).toMatchObject({ prompt_id: 'p5-evidence', segment_indexes: [1] });
    expect(notes.notes.flatMap((n) => n.summary)).not.toContain('What happened?');
  });
  it('maps facts to causes of action deterministically under a pinned taxonomy, and refuses an unknown one', () => {
    const sources = mappingSourcesOf({ artifact_id: 'art-t', kind: 'transcript', media_type: 'application/json', text: JSON.stringify({ segments }) }, (s) => s === 'interviewer');
    expect(sources.map((s) => s.locator)).toEqual(['segment:1']);
    const m = mapCausesOfAction(sources, 'coa-2026.1');
    expect(m).toEqual(mapCausesOfAction(sources, 'coa-2026.1'));
    expect(m.facts).toHaveLength(3);
    const supported = m.coa_map.filter((c) => c.fact_ids.length).map((c) => c.coa_id);
    expect(supported).toEqual(['BREACH_OF_CONTRACT', 'WRONGFUL_TERMINATION']);
    expect(m.evidence_map.every((e) => e.artifact_id === 'art-t')).toBe(true);
    expect(() => mapCausesOfAction(sources, 'coa-1999')).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
  });
});

describe('ORCHESTRATOR child inputs and §2.2 responses', () => {
  it('hands each child the inputs of its kinds and the outputs of earlier children', () => {
    const inputs = [ref('client_intake_form'), ref('interview_recording'), ref('source_document')];
    const prior = { intake: { output_artifacts: [ref('intake_summary')] }, interview: { output_artifacts: [ref('transcript'), ref('interview_notes')] } };
    expect(childInputs('intake', inputs, {}).map((a) => a.kind)).toEqual(['client_intake_form']);
    expect(childInputs('interview', inputs, prior).map((a) => a.kind)).toEqual(['interview_recording', 'intake_summary']);
    expect(childInputs('mapping', inputs, prior).map((a) => a.kind)).toEqual(['source_document', 'transcript', 'interview_notes']);
  });
  it('maps run states to outcomes: completed → success, denied or POLICY_DENIED → deny, else failure', () => {
    const empty = { output_artifacts: [], child_run_ids: [] };
    expect(responseOf('X', 'r', { ...empty, status: 'completed', response_hash_sha256: 'h' })).toMatchObject({ outcome: 'success', error: null, response_hash_sha256: 'h' });
    expect(responseOf('X', 'r', { ...empty, status: 'denied', error: { error_code: 'AGENT.UNKNOWN', message: 'm', retryable: false } }).outcome).toBe('deny');
    expect(responseOf('X', 'r', { ...empty, status: 'failed', error: { error_code: 'POLICY_DENIED', message: 'm', retryable: false } }).outcome).toBe('deny');
    expect(responseOf('X', 'r', { ...empty, status: 'failed', error: { error_code: 'INVALID_INPUT', message: 'x'.repeat(900), retryable: false } })).toMatchObject({ outcome: 'failure' });
    expect(responseOf('X', 'r', { ...empty, status: 'failed', error: { error_code: 'INVALID_INPUT', message: 'x'.repeat(900), retryable: false } }).error!.message.length).toBeLessThanOrEqual(500);
    expect(responseOf('X', 'r', { ...empty, status: 'running' }).error).toMatchObject({ error_code: 'RUN.IN_PROGRESS', retryable: true });
  });
  it('§2.2 a cancelled run is a failure with RUN.CANCELLED and the cancel\'s reason (probe finding: it was INTERNAL "ended without an error record")', () => {
    const cancelled = { output_artifacts: [], child_run_ids: [], status: 'cancelled' as const, cancel_requested: { reason: 'operator drill', requested_by: 'caller' } };
    expect(responseOf('X', 'r', cancelled)).toMatchObject({ outcome: 'failure', error: { error_code: 'RUN.CANCELLED', message: 'The run was cancelled: operator drill', retryable: false } });
    expect(responseOf('X', 'r', { ...cancelled, cancel_requested: undefined }).error).toMatchObject({ error_code: 'RUN.CANCELLED', message: 'The run was cancelled.' });
  });
});
