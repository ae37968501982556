import 'reflect-metadata';
import { validateMessage } from '@runledger/messaging';
import { AppError } from '@runledger/kernel';
import { AgentRunRequestDto } from './agent-run.dto';
import { JSON_FIELD_MAX_BYTES } from './bounds';
import { ArtifactGetRequestDto, ExportRequestDto, PromotionRequestDto } from './governed-runs.dto';
import { DbReadRequestDto, DbWriteRequestDto, ToolInvocationDto } from './runtime.dto';
import { DecisionContextDto } from './task-assistant.dto';

const UUID = '7f0e7c4e-2a7b-4f43-9f7e-0c6f8d7f5a11';
const governance = () => ({ parent_run_id: UUID, root_run_id: UUID, agent_name: 'TASK_ASSISTANT', lane: 'TASK_LANE', user_id: 'u1', policy_versions: { lanes: 'v1', roles: 'v1' } });
/** A JSON object of about `bytes` bytes. */
const blob = (bytes: number) => ({ text: 'x'.repeat(bytes) });

/** The refusal a request gets: its error code, retryability and the details that name the field. */
function refusal<T extends object>(dto: new () => T, raw: unknown): { code: string; retryable: boolean; details: string } | 'accepted' {
  try {
    validateMessage(dto, raw);
    return 'accepted';
  } catch (err) {
    if (!(err instanceof AppError)) throw err; // anything but a coded refusal is the bug this suite looks for
    return { code: err.code, retryable: err.retryable, details: (err.details ?? []).join('; ') };
  }
}

const tool = (over: Record<string, unknown> = {}) => ({ call_id: 'c1', tool_name: 'add_task', parameters: {}, governance: governance(), ...over });
const write = (over: Record<string, unknown> = {}) => ({ write_id: 'w1', collection: 'tasks', operation: 'upsert', document_id: 'd1', document: {}, governance: governance(), ...over });
const read = (over: Record<string, unknown> = {}) => ({ collection: 'tasks', filter: {}, governance: governance(), ...over });
const agent = (over: Record<string, unknown> = {}) => ({ agent_name: 'INTERVIEWER', case_id: 'case-1', input_artifacts: [], parameters: {}, ...over });

describe('Issue 10 bounded input: every request field has a bound; beyond it the answer is REQUEST.INVALID, not retryable', () => {
  // [bound, dto, a request within it, the same request beyond it, the field the refusal names]
  const cases: Array<[string, new () => object, unknown, unknown, string]> = [
    ['tool parameters ≤ 64 KiB', ToolInvocationDto, tool({ parameters: blob(JSON_FIELD_MAX_BYTES.parameters - 100) }), tool({ parameters: blob(JSON_FIELD_MAX_BYTES.parameters) }), 'parameters'],
    ['agent parameters ≤ 64 KiB', AgentRunRequestDto, agent({ parameters: blob(JSON_FIELD_MAX_BYTES.parameters - 100) }), agent({ parameters: blob(JSON_FIELD_MAX_BYTES.parameters) }), 'parameters'],
    ['db-write document ≤ 64 KiB', DbWriteRequestDto, write({ document: blob(JSON_FIELD_MAX_BYTES.document - 100) }), write({ document: blob(JSON_FIELD_MAX_BYTES.document) }), 'document'],
    ['db-write patch ≤ 64 KiB', DbWriteRequestDto, write({ operation: 'update', document: undefined, patch: blob(100) }), write({ operation: 'update', document: undefined, patch: blob(JSON_FIELD_MAX_BYTES.document) }), 'patch'],
    ['db-read filter ≤ 16 KiB', DbReadRequestDto, read({ filter: blob(JSON_FIELD_MAX_BYTES.filter - 100) }), read({ filter: blob(JSON_FIELD_MAX_BYTES.filter) }), 'filter'],
    ['governance scope labels ≤ 4 KiB', ToolInvocationDto, tool({ governance: { ...governance(), scope: { a: 'x'.repeat(100) } } }), tool({ governance: { ...governance(), scope: { a: 'x'.repeat(JSON_FIELD_MAX_BYTES.scope) } } }), 'governance.scope'],
    // 512: a caller door's user is keyed rl.caller.<identity>.<user_id> (a 256-character user_id and its caller's name).
    ['governance user_id ≤ 512', ToolInvocationDto, tool({ governance: { ...governance(), user_id: 'u'.repeat(512) } }), tool({ governance: { ...governance(), user_id: 'u'.repeat(513) } }), 'governance.user_id'],
    ['policy versions ≤ 128', ToolInvocationDto, tool(), tool({ governance: { ...governance(), policy_versions: { lanes: 'v'.repeat(129), roles: 'v1' } } }), 'governance.policy_versions.lanes'],
    ['task-assistant user_id ≤ 256', DecisionContextDto, { user_id: 'u'.repeat(256), message: 'hi', conversation_id: UUID }, { user_id: 'u'.repeat(257), message: 'hi', conversation_id: UUID }, 'user_id'],
    ['governance block is required (tool)', ToolInvocationDto, tool(), tool({ governance: undefined }), 'governance'],
    ['governance block is required (db write)', DbWriteRequestDto, write(), write({ governance: undefined }), 'governance'],
    ['governance block is required (db read)', DbReadRequestDto, read(), read({ governance: undefined }), 'governance'],
    ['governance block is required (artifact get)', ArtifactGetRequestDto, { artifact_id: 'a1', governance: governance() }, { artifact_id: 'a1' }, 'governance'],
    ['governance block is required (export)', ExportRequestDto, { export_id: 'e1', case_id: 'c', artifact_ids: ['a'], governance: governance() }, { export_id: 'e1', case_id: 'c', artifact_ids: ['a'] }, 'governance'],
    ['promotion candidate is required', PromotionRequestDto, { promotion_id: 'p', promotion_ticket_id: 't', target: 'shared_playbooks', candidate: { title: 't', text: 'x' }, governance: governance() }, { promotion_id: 'p', promotion_ticket_id: 't', target: 'shared_playbooks', governance: governance() }, 'candidate'],
    ['policy versions are required in a governance block', ToolInvocationDto, tool(), tool({ governance: { ...governance(), policy_versions: undefined } }), 'governance.policy_versions'],
  ];

  it.each(cases)('%s', (_bound, dto, within, beyond, field) => {
    expect(refusal(dto, within)).toBe('accepted');
    const r = refusal(dto, beyond);
    expect(r).toMatchObject({ code: 'REQUEST.INVALID', retryable: false });
    expect(r !== 'accepted' && r.details).toContain(field);
  });
});

describe('Bad input gets a specific error code: a document id the store would refuse is REQUEST.INVALID at the door, naming document_id', () => {
  // 170 × '€' is 510 bytes of UTF-8 in 170 characters: within the 256-character bound, so only the byte rule refuses 171.
  const euros = (n: number) => '€'.repeat(n);
  const bad: Array<[string, string, string]> = [
    ['a control character', 'doc\u0001id', 'document_id must not hold control characters'],
    ['a line break', 'doc\nid', 'document_id must not hold control characters'],
    ['a lone UTF-16 surrogate', 'doc\uD800', 'document_id must be well-formed text (no lone UTF-16 surrogate)'],
    ['more than 512 bytes as UTF-8', euros(171), 'document_id must be at most 512 bytes as UTF-8 (it is 513)'],
    ['an empty id', '', 'document_id must not be empty'],
  ];
  it.each(bad)('db-write and db-read refuse a document id with %s (not retryable)', (_what, id, words) => {
    for (const [dto, raw] of [[DbWriteRequestDto, write({ document_id: id })], [DbReadRequestDto, read({ document_id: id })]] as Array<[new () => object, unknown]>) {
      expect(refusal(dto, raw)).toEqual({ code: 'REQUEST.INVALID', retryable: false, details: words });
    }
  });

  it('an id of exactly 512 bytes, and one in other scripts, are accepted as the store keeps them', () => {
    for (const id of [`${euros(170)}ab`, 'a.b/c:d', 'タスク-1']) {
      expect(refusal(DbWriteRequestDto, write({ document_id: id }))).toBe('accepted');
      expect(refusal(DbReadRequestDto, read({ document_id: id }))).toBe('accepted');
    }
  });
});
