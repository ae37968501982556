import 'reflect-metadata';
import { AgentRunRequestDto, ArtifactIngestRequestDto, ExportRequestDto, CallerRunQueryDto, DbReadRequestDto, DeadLetterRetryRequestDto, RunQueryDto, RunsListRequestDto, SessionStartRequestDto } from '@runledger/contracts';
import { AppError } from '@runledger/kernel';
import { validateMessage } from './validation';
import { fieldDetail } from './validation-messages';

function detailsOf(dto: new () => object, plain: unknown): string[] {
  try {
    validateMessage(dto, plain);
  } catch (err) {
    if (err instanceof AppError) return [...(err.details ?? [])];
    throw err;
  }
  throw new Error('the message was accepted');
}

describe('Issue 26 validation details say what is wrong in words', () => {
  it('Issue 26 a missing field is "x is required", never a length or pattern failure', () => {
    const details = detailsOf(ArtifactIngestRequestDto, { case_id: 'case-42' });
    expect(details).toEqual(['agent_name is required', 'kind is required', 'media_type is required', 'content_base64 is required']);
  });

  it('Probe finding: a value of the wrong type is told the type it must be, not a length or range that fits no value of its kind', () => {
    expect(detailsOf(AgentRunRequestDto, { agent_name: 'INTAKE_AGENT', case_id: ['case-1'], input_artifacts: 'x', parameters: [], correlation_id: true })).toEqual([
      'case_id must be a string', 'correlation_id must be a string', 'input_artifacts must be an array', 'parameters must be an object',
    ]);
    expect(detailsOf(SessionStartRequestDto, { agent: 'researcher', prompt: 7 })).toEqual(['prompt must be a string']);
    expect(detailsOf(RunsListRequestDto, { limit: 'ten' })).toEqual(['limit must be an integer number']);
    // The right type keeps its other checks' words.
    expect(detailsOf(AgentRunRequestDto, { agent_name: 'INTAKE_AGENT', case_id: 'c'.repeat(129), input_artifacts: [], parameters: {} })).toEqual(['case_id must be shorter than or equal to 128 characters']);
  });

  it('README "one of the wrong type names the type alone": an object where a list of artifact refs goes is told it must be an array, not what an artifact ref lacks', () => {
    expect(detailsOf(AgentRunRequestDto, { agent_name: 'INTAKE_AGENT', case_id: 'case-1', input_artifacts: {}, parameters: {} })).toEqual(['input_artifacts must be an array']);
    expect(detailsOf(AgentRunRequestDto, { agent_name: 'INTAKE_AGENT', case_id: 'case-1', input_artifacts: { artifact_id: 7 }, parameters: {} })).toEqual(['input_artifacts must be an array']);
    // A list of the right kind still names what each element lacks, by its path.
    expect(detailsOf(AgentRunRequestDto, { agent_name: 'INTAKE_AGENT', case_id: 'case-1', input_artifacts: [{}], parameters: {} })).toEqual(expect.arrayContaining(['input_artifacts.0.artifact_id is required']));
  });

  it('Review finding: a value of the right kind keeps every problem: a fraction past the maximum, a list too long with a wrong element', () => {
    expect(detailsOf(RunsListRequestDto, { limit: 1000.5 })).toEqual(expect.arrayContaining(['limit must be an integer number', 'limit must not be greater than 500']));
    const ids = [...Array.from({ length: 500 }, (_, i) => `a-${i}`), 7];
    const details = detailsOf(ExportRequestDto, { export_id: 'e-1', case_id: 'case-1', artifact_ids: ids, governance: {} });
    expect(details).toEqual(expect.arrayContaining(['artifact_ids must contain no more than 500 elements', 'each value in artifact_ids must be a string']));
  });

  it('Issue 26 a field against its pattern is named with its form in words; no pattern (nor a template-mangled one) is shown', () => {
    const details = detailsOf(ArtifactIngestRequestDto, { case_id: '-x', agent_name: 'intake', kind: 'Form', media_type: 'json', content_base64: 'eyJ9', sha256: 'ABC' });
    expect(details).toEqual([
      'case_id must be a case id: a letter or digit, then letters, digits, . _ : or -',
      'agent_name must be an agent name: an upper-case letter, then upper-case letters, digits or _ (2-64 in all)',
      'kind must be an input kind: a lower-case letter, then lower-case letters, digits or _',
      'media_type must be a media type such as application/json (type/subtype, lower case, parameters after ;)',
      'sha256 must be a SHA-256 digest: 64 lower-case hexadecimal digits',
    ]);
    for (const d of details) expect(d).not.toMatch(/\/\^|\$constraint|regular expression/);
  });

  it('Issue 26 nested fields keep their path; other constraint messages and unknown fields are as class-validator words them', () => {
    const details = detailsOf(AgentRunRequestDto, { agent_name: 'INTAKE_AGENT', case_id: 'case-1', input_artifacts: [{ artifact_id: 'a', sha256: 'nope' }], parameters: {}, extra: 1 });
    expect(details).toContain('property extra should not exist');
    expect(details).toContain('input_artifacts.0.sha256 must be a SHA-256 digest: 64 lower-case hexadecimal digits');
    expect(details).toContain('input_artifacts.0.media_type is required');
    expect(detailsOf(SessionStartRequestDto, { agent: 'Researcher', prompt: 'x' })).toEqual(['agent must be a profile id: lower-case words of letters and digits joined by -']);
  });

  it('Review finding: a refusal names at most 20 problems and says how many more (100k bad keys must not make an answer larger than the bus carries)', () => {
    const many = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`extra${i}`, 1]));
    const details = detailsOf(SessionStartRequestDto, { agent: 'researcher', prompt: 'x', ...many });
    expect(details).toHaveLength(21);
    expect(details[20]).toBe('and 480 more');
    const hidden = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, { toString: 1 }]));
    expect(detailsOf(SessionStartRequestDto, { agent: 'researcher', prompt: 'x', parameters: hidden })).toHaveLength(21);
  });

  it('Issue 26 the form in words is the DTO\'s own @Matches message (one source with its pattern): a lane and a collection say theirs; a pattern with no words is still never shown', () => {
    const scope = { agent_name: 'INTAKE_AGENT', lane: 'intake', case_id: 'case-1', policy_versions: { lanes: 'l', roles: 'r' } };
    expect(detailsOf(DbReadRequestDto, { collection: 'Tasks', filter: {}, governance: scope })).toEqual(expect.arrayContaining([
      'collection must be a collection name: a lower-case letter, then lower-case letters, digits or _ (1-63 in all)',
      'governance.lane must be a lane name: an upper-case letter, then upper-case letters, digits or _ (2-64 in all)',
    ]));
    // The bound is the document store's (63): a 64-character name, which the store would refuse, is refused here.
    expect(detailsOf(DbReadRequestDto, { collection: 'a'.repeat(64), filter: {}, governance: scope })).toContain('collection must be a collection name: a lower-case letter, then lower-case letters, digits or _ (1-63 in all)');
    expect(detailsOf(DbReadRequestDto, { collection: 'a'.repeat(63), filter: {}, governance: scope }).filter((d) => d.startsWith('collection'))).toEqual([]);
    expect(detailsOf(DeadLetterRetryRequestDto, { id: 'no sequence' })).toEqual(['id has characters or a shape its contract does not allow']);
  });
});

describe('Issue 26 validation details name the field by its path', () => {
  it('Issue 26 a message is taken as naming the field only when it starts with the field name as a word (a field m and "must be multiple of 5" keeps its name)', () => {
    expect(fieldDetail('m', 'must be multiple of 5')).toBe('m: must be multiple of 5');
    expect(fieldDetail('spec.m', 'must be multiple of 5')).toBe('spec.m: must be multiple of 5');
    expect(fieldDetail('governance.case_id', 'case_id must be a string')).toBe('governance.case_id must be a string');
    expect(fieldDetail('a.case', 'case_id must be a string')).toBe('a.case: case_id must be a string');
    expect(fieldDetail('a.x', 'x')).toBe('a.x');
    expect(fieldDetail('', 'is not valid')).toBe('is not valid');
  });
});

describe('Probe finding: keys named like Object.prototype members are unknown fields like any other', () => {
  const runId = '6f1c2b1e-3c4d-4e5f-8a9b-0c1d2e3f4a5b';
  const artifact = { artifact_id: runId, sha256: 'a'.repeat(64), size_bytes: 3, media_type: 'application/json', kind: 'client_intake_form', case_id: 'case-1' };
  const run = { agent_name: 'INTAKE_AGENT', case_id: 'case-1', input_artifacts: [artifact], parameters: {} };

  it('REQUEST.INVALID for toString and hasOwnProperty beside a valid run_id, as for foo (the whitelist reads own keys only)', () => {
    expect(detailsOf(CallerRunQueryDto, { run_id: runId, foo: 1 })).toEqual(['property foo should not exist']);
    expect(detailsOf(CallerRunQueryDto, { run_id: runId, toString: 1, hasOwnProperty: 1 })).toEqual(['property toString should not exist', 'property hasOwnProperty should not exist']);
    for (const key of ['valueOf', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString', '__defineGetter__', '__lookupSetter__']) {
      expect(detailsOf(RunQueryDto, JSON.parse(`{"run_id":"${runId}","${key}":1}`))).toEqual([`property ${key} should not exist`]);
    }
    expect(detailsOf(RunsListRequestDto, { toString: 1 })).toEqual(['property toString should not exist']);
  });

  it('a nested DTO or a free-form value loses no key on the way: a prototype-named key there is refused, naming its path', () => {
    expect(detailsOf(AgentRunRequestDto, { ...run, input_artifacts: [{ ...artifact, valueOf: 1 }] })).toEqual(['property input_artifacts.0.valueOf should not exist']);
    expect(detailsOf(AgentRunRequestDto, { ...run, parameters: { a: [{ toString: 'x' }] } })).toEqual(['property parameters.a.0.toString should not exist']);
  });

  it('a valid message is accepted as sent, whether or not it names such words as values', () => {
    expect(validateMessage(AgentRunRequestDto, { ...run, parameters: { note: 'toString', list: ['valueOf'] } })).toMatchObject({ parameters: { note: 'toString', list: ['valueOf'] } });
  });
});
