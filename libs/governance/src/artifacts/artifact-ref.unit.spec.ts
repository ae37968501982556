import { checkSchema, makeArtifactRef, sha256Hex, validateArtifactRef, verifyArtifactContent, type ArtifactRef } from '../index';

const bytes = new TextEncoder().encode('Client: I signed the lease on 3 May.');
const ref: ArtifactRef = makeArtifactRef({ artifact_id: 'art-1', media_type: 'text/plain; charset=utf-8', kind: 'transcript', case_id: 'case-1', bytes });

describe('artifact_ref (SSOT binding)', () => {
  test('§1 artifact_ref: a reference built from bytes carries their sha256 and size and passes the schema', () => {
    expect(ref).toEqual({
      artifact_id: 'art-1', media_type: 'text/plain; charset=utf-8', kind: 'transcript', case_id: 'case-1',
      sha256: sha256Hex(bytes), size_bytes: bytes.length,
    });
    expect(validateArtifactRef(ref)).toEqual({ ok: true, value: ref });
  });

  test('§1 artifact_ref: malformed references are refused with every problem named', () => {
    const result = validateArtifactRef({ artifact_id: '', sha256: 'ABC', size_bytes: -1, media_type: 'text', kind: 'Transcript', extra: 1 });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors).toEqual(
        expect.arrayContaining([
          '/: unknown property "extra"',
          '/artifact_id: must NOT have fewer than 1 characters',
          '/sha256: must match pattern "^[0-9a-f]{64}$"',
          '/size_bytes: must be >= 0',
          expect.stringMatching(/^\/media_type: must match pattern/),
          expect.stringMatching(/^\/kind: must match pattern/),
        ]),
      );
    }
    expect(validateArtifactRef({ artifact_id: 'a' }).ok).toBe(false);
  });

  test('§1 artifact_ref: stored bytes that match the reference verify', () => {
    expect(verifyArtifactContent(ref, bytes)).toEqual({ ok: true });
  });

  test('§1 artifact_ref: same-size tampered bytes are a hash mismatch', () => {
    const tampered = bytes.slice();
    tampered[tampered.length - 2] ^= 1;
    expect(verifyArtifactContent(ref, tampered)).toEqual({
      ok: false, code: 'ARTIFACT.HASH_MISMATCH', expected_sha256: ref.sha256, actual_sha256: sha256Hex(tampered),
    });
  });

  test('§1 artifact_ref: truncated bytes are a size mismatch', () => {
    expect(verifyArtifactContent(ref, bytes.subarray(0, 10))).toEqual({
      ok: false, code: 'ARTIFACT.SIZE_MISMATCH', expected_size_bytes: bytes.length, actual_size_bytes: 10,
    });
  });
});

describe('contract v1 schemas', () => {
  const policy_versions = { lanes: 'lanes-2026.11.1', roles: 'roles-2026.11.1' };
  const agentRun = {
    run_id: 'run-2', run_kind: 'agent', agent_name: 'INTERVIEW_AGENT', parent_run_id: 'run-1', root_run_id: 'run-1',
    contract_version: 'v1', policy_versions, case_id: 'case-1', state: 'completed',
    inputs_artifacts_json: [ref], outputs_artifacts_json: [], request_hash_sha256: 'c'.repeat(64),
    error: null, created_at: '2026-11-22T10:00:00Z',
  };

  test('§1 run record: an agent run pins contract_version, policy_versions and artifact_ref arrays', () => {
    expect(checkSchema('run_record', agentRun)).toEqual({ ok: true });
    const { policy_versions: _dropped, ...unpinned } = agentRun;
    expect(checkSchema('run_record', unpinned)).toEqual({ ok: false, errors: ['/: missing required property "policy_versions"'] });
    expect(checkSchema('run_record', { ...agentRun, inputs_artifacts_json: [{ artifact_id: 'x' }] }).ok).toBe(false);
  });

  test('§1 run record: child runs name their lane; agent runs their agent; a denied run its deny code', () => {
    const child = { ...agentRun, run_kind: 'db_write', agent_name: undefined };
    expect(checkSchema('run_record', child)).toEqual({
      ok: false,
      errors: ['/: missing required property "lane"', '/: missing required property "action"'],
    });
    expect(checkSchema('run_record', { ...child, lane: 'WRITE_INTAKE_ARTIFACTS', action: 'append:transcripts' })).toEqual({ ok: true });
    expect(checkSchema('run_record', { ...agentRun, state: 'denied' }).ok).toBe(false);
    expect(checkSchema('run_record', { ...agentRun, state: 'denied', authz: { decision: 'deny', code: 'LANE.CALLER_DENIED', reason: 'No.' } })).toEqual({ ok: true });
  });

  test('§2.2 error: a failure carries error_code, a bounded message and retryable', () => {
    const failed = { ...agentRun, state: 'failed', error: { error_code: 'DEPENDENCY_DOWN', message: 'x'.repeat(501), retryable: true } };
    expect(checkSchema('run_record', failed)).toEqual({ ok: false, errors: expect.arrayContaining(['/error/message: must NOT have more than 500 characters']) });
  });

  test('§6 audit events: a deny decision must carry its code and reason; audited writes their request hash', () => {
    const base = { event_id: 'e-1', run_id: 'run-3', contract_version: 'v1', recorded_at: '2026-11-22T10:00:00Z' };
    expect(checkSchema('audit_event', { ...base, type: 'AuthzDecided', data: { decision: 'allow', policy_versions } })).toEqual({ ok: true });
    expect(checkSchema('audit_event', { ...base, type: 'AuthzDecided', data: { decision: 'deny', policy_versions } })).toEqual({
      ok: false,
      errors: ['/data: missing required property "code"', '/data: missing required property "reason"'],
    });
    const write = { lane: 'WRITE_INTAKE_ARTIFACTS', action: 'append:transcripts', outcome: 'success', request_hash_sha256: 'd'.repeat(64) };
    expect(checkSchema('audit_event', { ...base, type: 'DbWriteAudited', data: write })).toEqual({ ok: true });
    expect(checkSchema('audit_event', { ...base, type: 'DbWriteAudited', data: { ...write, request_hash_sha256: undefined } }).ok).toBe(false);
    expect(checkSchema('audit_event', { ...base, type: 'Whatever', data: {} }).ok).toBe(false);
  });

  test('§4.6 export bundle: the record binds manifest, bundle and their hashes', () => {
    const tar = { ...ref, artifact_id: 'bundle-1', kind: 'export_bundle', media_type: 'application/x-tar' };
    const record = {
      bundle_id: 'b-1', case_id: 'case-1', export_run_id: 'run-9', contract_version: 'v1', policy_versions,
      created_at: '2026-11-22T10:00:00Z', manifest_sha256: 'e'.repeat(64), manifest: { ...ref, kind: 'export_manifest' }, bundle: tar,
    };
    expect(checkSchema('export_bundle', record)).toEqual({ ok: true });
    expect(checkSchema('export_bundle', { ...record, manifest_sha256: undefined }).ok).toBe(false);
  });
});
