import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { ARTIFACT_MAX_BYTES, ArtifactGetRequestDto, ArtifactPutRequestDto, GovernanceScopeDto } from '@runledger/contracts';
import { ConcurrencyError, EventLog, NewEvent } from '@runledger/event-log';
import { ArtifactRef, loadPolicy, sha256Hex } from '@runledger/governance';
import { AppError } from '@runledger/kernel';
import { PolicyCatalog } from '@runledger/policy-catalog';
import type { CallerVerifier } from '@runledger/runs';
import { ArtifactStore, StoredArtifact } from './artifact-store';
import { artifactIdFor, ArtifactsService } from './artifacts.service';

const dir = join(__dirname, '..', '..', '..', '..', 'policy', 'contract-v1');
const policy = loadPolicy({ lanesYaml: readFileSync(join(dir, 'lanes.yaml'), 'utf8'), rolesYaml: readFileSync(join(dir, 'roles.yaml'), 'utf8') });

class MemoryStore implements ArtifactStore {
  readonly kind = 'nats-object-store' as const;
  readonly objects = new Map<string, StoredArtifact>();
  async putIfAbsent(ref: ArtifactRef, bytes: Uint8Array) {
    const held = this.objects.get(ref.artifact_id);
    if (held) return { ref: held.ref, created: false };
    this.objects.set(ref.artifact_id, { ref, bytes });
    return { ref, created: true };
  }
  async get(id: string) {
    return this.objects.get(id) ?? null;
  }
  async close() {}
}

/** Records appends per subject and enforces expectedVersion like the real log. */
class MemoryLog {
  readonly subjects = new Map<string, NewEvent[]>();
  async append(ref: { subject: string }, events: NewEvent[], opts: { expectedVersion?: number }) {
    const held = this.subjects.get(ref.subject) ?? [];
    if (opts.expectedVersion !== undefined && opts.expectedVersion !== held.length) throw new ConcurrencyError(ref.subject, opts.expectedVersion);
    this.subjects.set(ref.subject, [...held, ...events]);
    return { version: held.length + events.length, events: [], duplicate: false };
  }
  async readAggregate(ref: { subject: string }) {
    const held = this.subjects.get(ref.subject) ?? [];
    return { events: held, version: held.length };
  }
}

function scope(agent_name: string, lane: string, case_id?: string): GovernanceScopeDto {
  return Object.assign(new GovernanceScopeDto(), {
    parent_run_id: '00000000-0000-4000-8000-000000000001', root_run_id: '00000000-0000-4000-8000-000000000001',
    agent_name, lane, ...(case_id ? { case_id } : {}), policy_versions: { ...policy.versions },
  });
}

const put = (content: string | Buffer, governance: GovernanceScopeDto, extra: Partial<ArtifactPutRequestDto> = {}) =>
  Object.assign(new ArtifactPutRequestDto(), { content_base64: Buffer.from(content).toString('base64'), media_type: 'text/plain', kind: 'transcript', governance, ...extra });
const get = (artifact_id: string, governance: GovernanceScopeDto) => Object.assign(new ArtifactGetRequestDto(), { artifact_id, governance });

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err.code;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('ArtifactsService (rl.artifacts.put / get)', () => {
  let store: MemoryStore;
  let log: MemoryLog;
  let service: ArtifactsService;
  const interview = scope('INTERVIEW_AGENT', 'WRITE_INTAKE_ARTIFACTS', 'case-a');

  beforeAll(() => Logger.overrideLogger(false)); // refusals log warnings by design; keep the test output readable

  beforeEach(() => {
    store = new MemoryStore();
    log = new MemoryLog();
    // Claims are checked against the log by CallerVerifier (e2e: test/choke-points.e2e.spec.ts); here every caller is its record.
    const callers = { recorded: async () => undefined, check: async () => null } as unknown as CallerVerifier;
    service = new ArtifactsService(store, { resolve: async () => policy } as unknown as PolicyCatalog, log as unknown as EventLog, callers);
  });

  it('a put returns a content-addressed ref of the caller case, and a retried put the same ref with one provenance record', async () => {
    const ref = await service.put(put('hello case', interview, { name: 'notes.txt' }));
    expect(ref).toEqual({
      artifact_id: artifactIdFor(sha256Hex('hello case'), 'case-a', 'transcript', 'text/plain'), sha256: sha256Hex('hello case'), size_bytes: 10,
      media_type: 'text/plain', kind: 'transcript', case_id: 'case-a', name: 'notes.txt',
    });
    expect(await service.put(put('hello case', interview, { name: 'renamed.txt' }))).toEqual(ref);
    expect(log.subjects.get(`rl.log.artifact.${ref.artifact_id}`)?.map((e) => e.type)).toEqual(['ArtifactStored']);
    expect((await service.get(get(ref.artifact_id, interview))).content_base64).toBe(Buffer.from('hello case').toString('base64'));
  });

  it('the same bytes in another case, or as another kind, are another artifact', async () => {
    const a = await service.put(put('same bytes', interview));
    const b = await service.put(put('same bytes', scope('INTERVIEW_AGENT', 'WRITE_INTAKE_ARTIFACTS', 'case-b')));
    const c = await service.put(put('same bytes', interview, { kind: 'interview_notes' }));
    expect(new Set([a.artifact_id, b.artifact_id, c.artifact_id]).size).toBe(3);
  });

  it('content above 8 MiB is refused with REQUEST.TOO_LARGE naming the limit', async () => {
    const big = Buffer.alloc(ARTIFACT_MAX_BYTES + 1, 1);
    await expect(service.put(put(big, interview))).rejects.toThrow(/8388609 bytes; the limit is 8 MiB/);
    expect(await codeOf(service.put(put(big, interview)))).toBe('REQUEST.TOO_LARGE');
    expect((await service.put(put(Buffer.alloc(ARTIFACT_MAX_BYTES, 1), interview))).size_bytes).toBe(ARTIFACT_MAX_BYTES);
  });

  it('a claimed sha256 that does not match the content, or stored bytes that no longer match the ref, are refused with ARTIFACT.HASH_MISMATCH', async () => {
    expect(await codeOf(service.put(put('abc', interview, { sha256: sha256Hex('abd') })))).toBe('ARTIFACT.HASH_MISMATCH');
    const ref = await service.put(put('original', interview));
    store.objects.set(ref.artifact_id, { ref, bytes: Buffer.from('tampered') });
    expect(await codeOf(service.get(get(ref.artifact_id, interview)))).toBe('ARTIFACT.HASH_MISMATCH');
    store.objects.set(ref.artifact_id, { ref, bytes: Buffer.from('original!') });
    expect(await codeOf(service.get(get(ref.artifact_id, interview)))).toBe('ARTIFACT.HASH_MISMATCH');
  });

  it("another case's artifact is refused and the refusal is recorded; shared-plane artifacts are readable from any lane", async () => {
    const ref = await service.put(put('case a only', interview));
    expect(await codeOf(service.get(get(ref.artifact_id, scope('INTERVIEW_AGENT', 'WRITE_INTAKE_ARTIFACTS', 'case-b'))))).toBe('CASE.CROSS_CASE_DENIED');
    expect(await codeOf(service.get(get(ref.artifact_id, scope('GOVERNANCE_AGENT', 'PROMOTE_SHARED_KNOWLEDGE'))))).toBe('CASE.CROSS_CASE_DENIED');
    expect(log.subjects.get(`rl.log.artifact.${ref.artifact_id}`)?.map((e) => e.type)).toEqual(['ArtifactStored', 'ArtifactAccessDenied', 'ArtifactAccessDenied']);

    const shared = await service.put(put('a shared heuristic', scope('GOVERNANCE_AGENT', 'PROMOTE_SHARED_KNOWLEDGE'), { kind: 'promoted_shared_heuristics' }));
    expect(shared.case_id).toBeUndefined();
    expect((await service.get(get(shared.artifact_id, interview))).artifact_ref).toEqual(shared);
  });

  it('callers outside their lane are refused; only a shared lane writes case-less artifacts; the ORCHESTRATOR records its own case outputs', async () => {
    expect(await codeOf(service.put(put('x', scope('MAPPING_AGENT', 'WRITE_INTAKE_ARTIFACTS', 'case-a'))))).toBe('LANE.DENIED');
    expect(await codeOf(service.put(put('x', scope('INTERVIEW_AGENT', 'WRITE_INTAKE_ARTIFACTS'))))).toBe('LANE.DENIED');
    expect(await codeOf(service.put(put('x', scope('TASK_ASSISTANT', 'TASKS'))))).toBe('LANE.DENIED');
    expect(await codeOf(service.put(put('x', scope('ORCHESTRATOR', 'NONE'))))).toBe('LANE.DENIED');
    expect((await service.put(put('workflow summary', scope('ORCHESTRATOR', 'NONE', 'case-a'), { kind: 'workflow_summary' }))).case_id).toBe('case-a');
  });
});
