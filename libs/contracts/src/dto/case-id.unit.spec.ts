import 'reflect-metadata';
import { contractValidator } from '@runledger/contract-schemas';
import { AppError } from '@runledger/kernel';
import { validateMessage } from '@runledger/messaging';
import { AgentRunRequestDto } from './agent-run.dto';
import { ArtifactIngestRequestDto } from './callers.dto';
import { RunsListRequestDto } from './operations.dto';
import { SessionStartRequestDto } from './session.dto';

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
