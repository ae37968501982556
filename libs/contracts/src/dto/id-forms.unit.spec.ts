import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contractValidator } from '@runledger/contract-schemas';
import { AppError } from '@runledger/kernel';
import { VISIBLE_TEXT_PATTERN } from '@runledger/task-assistant';
import { validateMessage } from '@runledger/messaging';
import { AgentRunRequestDto } from './agent-run.dto';
import { ArtifactIngestRequestDto } from './callers.dto';
import { DURABLE_NAME } from './forms';
import { DeadLettersListRequestDto, RunsListRequestDto } from './operations.dto';
import { SessionStartRequestDto } from './session.dto';
import { DecisionContextDto } from './task-assistant.dto';

const FORM = 'case_id must be a case id: a letter or digit, then letters, digits, . _ : or -';
/** Case ids artifacts.ingest refuses (probe finding: runs.start and sessions.start took them). */
const MALFORMED = ['case-a b\nc', 'case-a.b.*', '-case', 'case/1'];

const requests = [
  { dto: AgentRunRequestDto, schema: 'schemas/governed-runs/agent-run-request.schema.json', ok: { agent_name: 'INTAKE_AGENT', case_id: 'case-1', input_artifacts: [], parameters: {} } },
  { dto: SessionStartRequestDto, schema: 'schemas/sessions/session-start-request.schema.json', ok: { agent: 'task-helper', prompt: 'hi', case_id: 'case-1' } },
  { dto: ArtifactIngestRequestDto, schema: 'schemas/callers/artifact-ingest-request.schema.json', ok: { case_id: 'case-1', agent_name: 'INTAKE_AGENT', kind: 'client_intake_form', media_type: 'application/json', content_base64: 'e30=' } },
] as const;

function details(dto: new () => object, raw: unknown): string[] | 'accepted' {
  try {
    validateMessage(dto, raw);
    return 'accepted';
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return err.details ?? [];
  }
}

describe('Case ids: every request that names a new run, session or artifact holds case_id to one form', () => {
  it.each(requests.map((r) => [r.dto.name, r] as const))('Probe finding (case ids ingest refuses): %s refuses them in the words of the form, by DTO and by its JSON Schema alike', (_name, { dto, schema, ok }) => {
    const validate = contractValidator(schema);
    expect(details(dto, ok)).toBe('accepted');
    expect(validate(ok)).toBe(true);
    for (const case_id of MALFORMED) {
      expect(details(dto, { ...ok, case_id })).toEqual([FORM]);
      expect(validate({ ...ok, case_id })).toBe(false);
    }
    expect(validate({ ...ok, case_id: 'c'.repeat(129) })).toBe(false);
  });

  it('a runs.list filter takes any case id: runs an earlier release recorded under another form stay readable', () => {
    expect(details(RunsListRequestDto, { case_id: 'case-a b\nc' })).toBe('accepted');
    expect(contractValidator('schemas/runs/runs-list-request.schema.json')({ case_id: 'case-a.b.*' })).toBe(true);
  });
});

/** User ids an operator could not type back to `runledger erase --user` (probe finding: `fr\u0000ank`). */
const UNTYPABLE = ['fr\u0000ank', 'tab\tuser', 'line\nbreak', 'del\u007f', 'c1\u0085'];

const userRequests = [
  { dto: DecisionContextDto, schema: 'schemas/task-assistant/decision-context.schema.json', ok: { user_id: 'alice', message: 'hi', conversation_id: '11111111-1111-4111-8111-111111111111' } },
  { dto: SessionStartRequestDto, schema: 'schemas/sessions/session-start-request.schema.json', ok: { agent: 'task-helper', prompt: 'hi', user_id: 'alice' } },
] as const;

describe('Bad input gets a specific error: a user id holds no control character (erasable by what an operator can type)', () => {
  it.each(userRequests)('$schema: the DTO and the schema refuse each, naming user_id; printable ids (unicode too) pass', ({ dto, schema, ok }) => {
    const validate = contractValidator(schema);
    for (const user_id of UNTYPABLE) {
      expect({ user_id, problems: details(dto, { ...ok, user_id }) }).toEqual({ user_id, problems: ['user_id must be a user id without control characters'] });
      expect({ user_id, schema: validate({ ...ok, user_id }) }).toEqual({ user_id, schema: false });
    }
    for (const user_id of ['alice', 'rl.caller.caller.kim', 'Zoë 🙂', 'a b']) {
      expect({ user_id, dto: details(dto, { ...ok, user_id }), schema: validate({ ...ok, user_id }) }).toEqual({ user_id, dto: 'accepted', schema: true });
    }
  });
});

describe('Durable names: rl.deadletters.list and the CLI check --durable by one rule (DURABLE_NAME)', () => {
  it('README CLI exit codes (an id not of its form): the stack refuses what the CLI refuses, in the words of the form, and the contract says the same pattern', () => {
    for (const durable of ['a.b', 'a b', '>', '']) {
      expect({ durable, problems: details(DeadLettersListRequestDto, { durable }) }).toEqual({ durable, problems: ['durable must be a durable consumer name: letters, digits, _ or -'] });
    }
    expect(details(DeadLettersListRequestDto, { durable: 'decision-inbox' })).toBe('accepted');
    const asyncapi = readFileSync(join(__dirname, '..', '..', '..', '..', 'proto-contracts', 'asyncapi.yaml'), 'utf8');
    expect(/DeadLettersListRequest:[\s\S]*?durable: \{ type: string, pattern: '([^']*)' \}/.exec(asyncapi)?.[1]).toBe(DURABLE_NAME.source);
  });
});

describe('Contract 000 Validation: a task description 1-1000 chars; one that shows nothing is as empty as ""', () => {
  it('a caller-sent pending_confirmation whose task_description is invisible characters only is refused by the DTO and the schema alike, by the task-assistant lib\'s one rule', () => {
    const schema = 'schemas/task-assistant/decision-context.schema.json';
    const validate = contractValidator(schema);
    const pending = (task_description: string) => ({ ...userRequests[0].ok, pending_confirmation: { action_type: 'DELETE_TASK', task_id: '22222222-2222-4222-8222-222222222222', task_description, created_at: '2026-11-28T10:00:00.000Z', expires_at: '2026-11-28T10:05:00.000Z' } });
    for (const blank of ['\u200b', '\u200b\u2060', '\u00ad', ' \u3000']) {
      expect({ blank, dto: details(DecisionContextDto, pending(blank)), schema: validate(pending(blank)) }).toEqual({ blank, dto: ['pending_confirmation.task_description must be a description that shows something, not invisible characters only'], schema: false });
    }
    expect({ dto: details(DecisionContextDto, pending('buy\u200b milk')), schema: validate(pending('buy\u200b milk')) }).toEqual({ dto: 'accepted', schema: true });
    // The schema's pattern is the lib's, not a second rule.
    const properties = (JSON.parse(readFileSync(join(__dirname, '..', '..', '..', '..', 'proto-contracts', schema), 'utf8')) as { properties: { pending_confirmation: { oneOf: Array<{ properties?: { task_description: { pattern: string } } }> } } }).properties;
    expect(properties.pending_confirmation.oneOf[1].properties!.task_description.pattern).toBe(VISIBLE_TEXT_PATTERN);
  });
});
