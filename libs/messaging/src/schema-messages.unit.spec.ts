import 'reflect-metadata';
import { contractValidator } from '@runledger/contract-schemas';
import { AgentRunRequestDto } from '@runledger/contracts';
import { AppError } from '@runledger/kernel';
import { describeSchemaErrors, pointerPath } from './schema-messages';
import { validateBySchema, validateMessage } from './validation';

const CAMPAIGN = 'schemas/campaigns/';
const schema = (name: string) => contractValidator(`${CAMPAIGN}${name}.schema.json`);

function refusal(run: () => unknown): { message: string; details: string[] } {
  try {
    run();
  } catch (err) {
    if (err instanceof AppError) return { message: err.message, details: [...(err.details ?? [])] };
    throw err;
  }
  throw new Error('the message was accepted');
}

const detailsOf = (name: string, plain: unknown) => refusal(() => validateBySchema(schema(name), plain)).details;
const campaignId = '6f1c2b1e-3c4d-4e5f-8a9b-0c1d2e3f4a5b';
const lead = { full_name: 'Jane Doe', profile_url: 'https://example.org/in/jane' };

describe('Probe finding: the campaign subjects (JSON Schema contracts) refuse in the words of every other request (README "Input bounds")', () => {
  it('README Input bounds: an unknown field is "property foo should not exist" naming it by its path, a missing one "x is required", never Ajv\'s wording', () => {
    expect(detailsOf('campaign-command-request', { zzz: 1 })).toEqual(['campaign_id is required', 'property zzz should not exist']);
    expect(detailsOf('campaign-leads-import-request', { campaign_id: campaignId, import_id: 'i-1', leads: [{ ...lead, zzz: 1 }] })).toEqual(['property leads.0.zzz should not exist']);
    expect(detailsOf('campaign-leads-import-request', { campaign_id: campaignId, import_id: 'i-1', leads: [lead, { profile_url: lead.profile_url }] })).toEqual(['leads.1.full_name is required']);
    expect(detailsOf('campaign-answer-request', { campaign_id: campaignId, item_id: campaignId, decision: 'answered', approver: { id: 'ops' } })).toEqual(['approver.role is required']);
    for (const d of [...detailsOf('campaign-command-request', { zzz: 1 }), ...detailsOf('campaign-create-request', {})]) {
      expect(d).not.toMatch(/\(root\)|must have required property|must NOT have|^\//);
    }
  });

  it('README Input bounds: a wrong type names the type alone, bounds and enums read as a DTO\'s do, a pattern is never shown', () => {
    expect(detailsOf('campaign-command-request', { campaign_id: 7, max_cycles: 201, reason: 'x'.repeat(501) })).toEqual([
      'campaign_id must be a string', 'reason must be shorter than or equal to 500 characters', 'max_cycles must not be greater than 200',
    ]);
    expect(detailsOf('campaign-command-request', { campaign_id: 'nope', max_cycles: 1.5 })).toEqual(['campaign_id must be a UUID', 'max_cycles must be an integer number']);
    expect(detailsOf('campaign-answer-request', { campaign_id: campaignId, item_id: campaignId, decision: 'maybe', approver: { id: 'ops', role: 'ops' } })).toEqual([
      'decision must be one of the following values: approved, rejected, answered', 'approver.role has characters or a shape its contract does not allow',
    ]);
    expect(detailsOf('campaign-leads-import-request', { campaign_id: campaignId, import_id: 'i-1', leads: [] })).toEqual(['leads must contain at least 1 elements']);
    expect(detailsOf('campaign-leads-import-request', { campaign_id: campaignId, import_id: 'i-1', leads: [{ ...lead, profile_url: 'javascript:alert(1)' }] })).toEqual([
      'leads.0.profile_url must be an absolute http: or https: URL with a host',
    ]);
  });

  it('README Input bounds: the agent spec is chosen by its kind; a missing or unknown kind says so naming the kinds, a known one its own problems only', () => {
    const create = (agent: unknown) => detailsOf('campaign-create-request', { campaign_id: campaignId, name: 'c', agent });
    expect(create({ kind: 'robot' })).toEqual(['agent.kind must be one of the following values: scripted, llm, session']);
    expect(create({ model: 'm' })).toEqual(['agent.kind is required']);
    expect(create('llm')).toEqual(['agent must be an object']);
    expect(create({ kind: 'llm', model: 'm', token_limit: 0, extra: 1 })).toEqual(['property agent.extra should not exist', 'agent.token_limit must not be less than 1']);
    expect(create({ kind: 'session' })).toEqual(['agent.agent is required']);
  });

  it('README Input bounds: the same boundary as a DTO\'s: a JSON object, prototype-named keys refused at any depth, at most 20 problems', () => {
    expect(refusal(() => validateBySchema(schema('campaign-command-request'), [1])).message).toBe('The request must be a JSON object.');
    const proposals = [{ action_type: 'no_op', toString: 1 }];
    expect(detailsOf('campaign-create-request', { campaign_id: campaignId, name: 'c', agent: { kind: 'scripted', proposals } })).toEqual(['property agent.proposals.0.toString should not exist']);
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`x${i}`, 1]));
    const details = detailsOf('campaign-command-request', { campaign_id: campaignId, ...many });
    expect(details).toHaveLength(21);
    expect(details[20]).toBe('and 10 more');
  });

  it('README Input bounds: a DTO\'s unknown field inside a nested object is named by its whole path too, as the schema\'s are', () => {
    const artifact = { artifact_id: 'a-1', sha256: 'a'.repeat(64), size_bytes: 3, media_type: 'application/json', kind: 'client_intake_form', case_id: 'case-1', zzz: 1 };
    const run = { agent_name: 'INTAKE_AGENT', case_id: 'case-1', input_artifacts: [artifact], parameters: {} };
    expect(refusal(() => validateMessage(AgentRunRequestDto, run)).details).toEqual(['property input_artifacts.0.zzz should not exist']);
  });

  it('a JSON pointer is named as a DTO path (escapes undone), and a lone wrapper error still says something', () => {
    expect([pointerPath(''), pointerPath('/leads/0/full_name'), pointerPath('/a~1b/c~0d')]).toEqual(['', 'leads.0.full_name', 'a/b.c~d']);
    expect(describeSchemaErrors([{ keyword: 'oneOf', instancePath: '/agent', schemaPath: '#/properties/agent/oneOf', params: {}, message: 'must match exactly one schema in oneOf' }])).toEqual([
      'agent: must match exactly one schema in oneOf',
    ]);
  });
});
