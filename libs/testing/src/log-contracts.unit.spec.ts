import { LogContracts, type LoggedEvent } from './log-contracts';

const SEALED = { sealed: 'aes-256-gcm/v1', owner: 'case.Y2FzZS0x', iv: 'AAAAAAAAAAAAAAAA', tag: 'AAAAAAAAAAAAAAAAAAAAAA==', ciphertext: 'eyJ4IjoxfQ==', text: true };
const contracts = new LogContracts({
  fields: { RunCreated: ['parameters.message'], MessageExchanged: ['user_message', 'assistant_message', 'pending_confirmation'] },
  isSealed: (v) => typeof v === 'object' && v !== null && (v as { sealed?: unknown }).sealed === 'aes-256-gcm/v1',
  isErased: (v) => v === '[erased]',
});

const sha = 'a'.repeat(64);
const metadata = { event_id: 'e-1', stream_id: 'run-1', run_id: 'run-1', root_run_id: 'run-1', schema_version: 1, contract_version: 'v1', producer: 'tool-gateway', recorded_at: '2026-11-26T10:00:00.000Z' };
const event = (type: string, data: unknown): LoggedEvent => ({ type, data, metadata });
const check = (e: LoggedEvent, opened: LoggedEvent = e) => contracts.checkEvent(e, opened);
const created = {
  run_id: 'run-1', run_kind: 'agent', agent_name: 'INTAKE_AGENT', root_run_id: 'run-1', contract_version: 'v1', policy_versions: { lanes: 'l1', roles: 'r1' },
  input_artifacts: [], parameters: { message: 'hello' }, request_hash_sha256: sha,
};
const toolAudited = { lane: 'TASKS', action: 'add_task', outcome: 'success', request_hash_sha256: sha, tool_name: 'add_task', call_id: 'c-1', status: 'ok', input_sha256: sha, duration_ms: 3 };

describe('Issue 26 log contracts: every event against its schema in proto-contracts', () => {
  it('every event type in the map has a compiling schema, the run events and the audit events among them', () => {
    expect(contracts.types).toEqual(expect.arrayContaining(['RunCreated', 'AuthzDecided', 'RunCompleted', 'ToolCallAudited', 'DbWriteAudited', 'PromotionAudited', 'ExportFinalized']));
  });

  it('an event as its producer writes it passes; a missing field, an extra field and an unknown type are named', () => {
    expect(check(event('RunCreated', created))).toEqual([]);
    const { request_hash_sha256: _, ...missing } = created;
    expect(check(event('RunCreated', missing))).toEqual(['data/: misses required field "request_hash_sha256"']);
    expect(check(event('RunCreated', { ...created, surprise: 1 }))).toEqual(['data/: has extra field "surprise"']);
    expect(check(event('SomethingForged', {}))).toEqual(['has no schema in proto-contracts/event-types.json']);
  });

  it('audit events are also checked as audit_event.schema.json records: the old ToolCallAudited and ExportFinalized shapes fail', () => {
    expect(check(event('ToolCallAudited', toolAudited))).toEqual([]);
    const old = check(event('ToolCallAudited', { tool_name: 'add_task', call_id: 'c-1', status: 'ok', input_sha256: sha, duration_ms: 3 }));
    expect(old).toEqual(expect.arrayContaining(['data/: misses required field "lane"', 'as audit_event: /data: misses required field "request_hash_sha256"']));
    const finalized = check(event('ExportFinalized', { export_id: 'x-1', bundle_ref: { artifact_id: 'a-1', sha256: sha, size_bytes: 1, media_type: 'application/x-tar', kind: 'export_bundle' } }));
    expect(finalized).toEqual(expect.arrayContaining(['data/: has extra field "bundle_ref"', 'as audit_event: /data: misses required field "bundle_id"']));
  });

  it('a sealed field is checked in its sealed shape as stored and in its plain shape as opened; an erased one only sealed', () => {
    const stored = event('RunCreated', { ...created, parameters: { message: SEALED } });
    expect(check(stored, event('RunCreated', created))).toEqual([]);
    expect(check(event('RunCreated', { ...created, parameters: { message: { ...SEALED, key: 'leaked' } } }), event('RunCreated', created))).toEqual(['sealed parameters.message: /: has extra field "key"']);
    const exchanged = { run_id: 'run-1', user_message: 'hi', assistant_message: 'hello', at: '2026-11-26T10:00:00.000Z', pending_confirmation: null, based_on_run_id: null };
    const sealedExchange = event('MessageExchanged', { ...exchanged, user_message: SEALED });
    expect(check(sealedExchange, event('MessageExchanged', { ...exchanged, user_message: '[erased]' }))).toEqual([]);
    expect(check(sealedExchange, event('MessageExchanged', { ...exchanged, user_message: 7 }))).toEqual(['data/user_message: must be string']);
  });

  it('a log record of either format passes the log record schema; anything else is named', () => {
    expect(contracts.checkRecord({ commit: { format: 2, metadata, events: [{ id: '6f1c1f4e-6a4f-4a57-9f43-5b8f3f2a1c11', type: 'RunStarted', data: {} }] } })).toEqual([]);
    expect(contracts.checkRecord({ nonsense: true }).length).toBeGreaterThan(0);
  });
});
