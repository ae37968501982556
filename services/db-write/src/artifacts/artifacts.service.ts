import { Inject, Injectable, Logger } from '@nestjs/common';
import { ARTIFACT_MAX_BYTES, ArtifactGetRequestDto, ArtifactGetResult, ArtifactPutRequestDto, GovernanceScope } from '@runledger/contracts';
import { aggregateRef, ConcurrencyError, EventLog } from '@runledger/event-log';
import { ArtifactContentMismatch, ArtifactRef, getLane, getRole, makeArtifactRef, sha256Hex, validateArtifactRef, verifyArtifactContent } from '@runledger/governance';
import { AppError } from '@runledger/kernel';
import { PolicyCatalog } from '@runledger/policy-catalog';
import { CallerVerifier } from '@runledger/runs';
import { ARTIFACT_STORE, ArtifactStore } from './artifact-store';

/**
 * The content-addressed id of an artifact: the same bytes stored for the same case, kind and media type get
 * the same id, so a retried put is a no-op. Kind and media type take part so that identical bytes stored as
 * two different things (a transcript and a note) keep two truthful references. A valid log subject token.
 */
export function artifactIdFor(sha256: string, caseId: string | undefined, kind: string, mediaType: string): string {
  return `art-${sha256Hex(['artifact', sha256, caseId ?? '', kind, mediaType].join('\u001f'))}`;
}

/** Artifact provenance lives in the log at `rl.log.artifact.<artifact_id>` (see ArtifactsService.record). */
export const artifactLogRef = (artifactId: string) => aggregateRef('artifact', artifactId);

/**
 * rl.artifacts.put / rl.artifacts.get: the only door to artifact bytes. Every access names a caller and lane
 * under pinned policy; artifacts belong to the caller's case (or, from a shared lane only, to the shared plane);
 * another case's artifact is never returned; bytes are verified against their reference on the way in and out.
 *
 * Why a put is not a run event: the caller's run is owned by its worker, which appends with optimistic
 * concurrency — an append from here would make the worker's next append fail mid-run; and artifacts are
 * object storage, not a domain table, so lanes.yaml lists no db_write action for them. The binding of
 * artifacts to runs is each run's input/output artifact refs and its choke-point audit events (chained);
 * the store's own provenance record (`ArtifactStored`, first writer) goes to the artifact's log subject.
 */
@Injectable()
export class ArtifactsService {
  private readonly logger = new Logger('Artifacts');

  constructor(
    @Inject(ARTIFACT_STORE) private readonly store: ArtifactStore,
    private readonly policies: PolicyCatalog,
    private readonly log: EventLog,
    private readonly callers: CallerVerifier,
  ) {}

  async put(req: ArtifactPutRequestDto): Promise<ArtifactRef> {
    const g = req.governance;
    const lane = await this.admit(g, 'put');
    if (!g.case_id && lane.isolation !== 'shared') {
      throw new AppError('LANE.DENIED', `Artifacts stored from lane ${g.lane} belong to a case: the calling run must be pinned to one.`);
    }
    const bytes = decodeArtifactBytes(req.content_base64, req.sha256);
    return this.storeBytes({ bytes, kind: req.kind, media_type: req.media_type, ...(g.case_id ? { case_id: g.case_id } : {}), ...(req.name ? { name: req.name } : {}) }, { data: who(g), metadata: links(g) });
  }

  /**
   * Stores verified bytes as an artifact (content-addressed per case, kind and media type; the first writer's
   * reference stands) and records its first writer (`ArtifactStored`, with `provenance`). Every door to the store
   * (rl.artifacts.put, a caller's ingest) stores through here.
   */
  async storeBytes(input: { bytes: Uint8Array; kind: string; media_type: string; case_id?: string; name?: string }, provenance: { data: Record<string, unknown>; metadata: Record<string, unknown> }): Promise<ArtifactRef> {
    const { bytes } = input;
    const sha256 = sha256Hex(bytes);
    const ref = makeArtifactRef({
      artifact_id: artifactIdFor(sha256, input.case_id, input.kind, input.media_type), media_type: input.media_type, kind: input.kind,
      ...(input.case_id ? { case_id: input.case_id } : {}), ...(input.name ? { name: input.name } : {}), bytes,
    });
    const valid = validateArtifactRef(ref);
    if (!valid.ok) throw new AppError('REQUEST.INVALID', 'The artifact reference would not be valid.', valid.errors);

    const held = await this.store.putIfAbsent(ref, bytes);
    // The first writer's reference stands (its name, if a retry renamed it); it must still vouch for these bytes.
    if (held.ref.sha256 !== sha256 || held.ref.size_bytes !== bytes.length) throw new AppError('ARTIFACT.HASH_MISMATCH');
    await this.record(held.ref, provenance);
    return held.ref;
  }

  /** An artifact's bytes and reference, verified against it; ARTIFACT.NOT_FOUND when not stored. */
  async readVerified(artifactId: string): Promise<ArtifactGetResult> {
    const stored = await this.store.get(artifactId);
    if (!stored) throw new AppError('ARTIFACT.NOT_FOUND');
    const check = verifyArtifactContent(stored.ref, stored.bytes);
    if (!check.ok) {
      this.logger.error({ msg: 'stored artifact does not match its reference', artifact_id: stored.ref.artifact_id, check });
      throw new AppError('ARTIFACT.HASH_MISMATCH', undefined, mismatchDetails(check));
    }
    return { artifact_ref: stored.ref, content_base64: Buffer.from(stored.bytes).toString('base64') };
  }

  async get(req: ArtifactGetRequestDto): Promise<ArtifactGetResult> {
    const g = req.governance;
    await this.admit(g, 'get');
    const stored = await this.store.get(req.artifact_id);
    if (!stored) throw new AppError('ARTIFACT.NOT_FOUND');
    // Shared-plane artifacts (no case) are readable from any lane; a case's artifacts only from that case.
    if (stored.ref.case_id !== undefined && stored.ref.case_id !== g.case_id) {
      await this.recordDenial(stored.ref, g, 'CASE.CROSS_CASE_DENIED');
      throw new AppError('CASE.CROSS_CASE_DENIED', 'The artifact belongs to another case.');
    }
    const check = verifyArtifactContent(stored.ref, stored.bytes);
    if (!check.ok) {
      this.logger.error({ msg: 'stored artifact does not match its reference', artifact_id: stored.ref.artifact_id, check });
      await this.recordDenial(stored.ref, g, 'ARTIFACT.HASH_MISMATCH');
      throw new AppError('ARTIFACT.HASH_MISMATCH', undefined, mismatchDetails(check));
    }
    return { artifact_ref: stored.ref, content_base64: Buffer.from(stored.bytes).toString('base64') };
  }

  /**
   * The caller must be the run it names, as the log recorded it (agent, root, case, user, pins), and a known role
   * using a lane that admits it (both sides, as in authorize). The case that decides what it may touch is then the
   * recorded one, but for a shared lane (see sharedLaneCase). System principals (the ORCHESTRATOR) hold no lane by design yet record their outputs as artifacts of
   * their case.
   */
  private async admit(g: GovernanceScope, access: 'get' | 'put') {
    const policy = await this.policies.resolve(g.policy_versions);
    const role = getRole(policy, g.agent_name);
    const lane = getLane(policy, g.lane);
    const mismatch = await this.callers.check(g, { ignore: (await this.sharedLaneCase(g, access, lane?.isolation)) ? ['case_id'] : [] });
    if (mismatch) throw new AppError(mismatch.code, mismatch.reason);
    if (role?.principal === 'system' && g.case_id) return { isolation: 'case' as const };
    if (!role || !lane || !role.lanes.includes(lane.name) || !lane.allowed_callers.includes(role.name)) {
      throw new AppError('LANE.DENIED', `${label(g.agent_name)} may not use lane ${label(g.lane)}.`);
    }
    return lane;
  }

  /**
   * The two ways a shared-lane call may state another case than its run recorded: a case-less run reads the case it
   * screens (promotion), and any run writes to the shared plane (no case). Never a case it did not record to write.
   */
  private async sharedLaneCase(g: GovernanceScope, access: 'get' | 'put', isolation: string | undefined): Promise<boolean> {
    if (isolation !== 'shared') return false;
    if (access === 'put') return g.case_id === undefined;
    return !(await this.callers.recorded(g.parent_run_id))?.case_id;
  }

  /**
   * First writer only: expectedVersion 0 makes a repeat (retry, same bytes from another run) a no-op. A subject that
   * holds no ArtifactStored but something else (a message an identity had the server store there: a JetStream answer
   * to a request's reply subject) gets it after that, not never.
   */
  private async record(ref: ArtifactRef, provenance: { data: Record<string, unknown>; metadata: Record<string, unknown> }): Promise<void> {
    const subject = artifactLogRef(ref.artifact_id);
    const stored = (expectedVersion: number) => this.log
      .append(subject, [{ type: 'ArtifactStored', data: { artifact_ref: ref, backend: this.store.kind, ...provenance.data }, metadata: provenance.metadata }], { expectedVersion, commandId: `artifact-stored:${ref.artifact_id}` })
      .then(() => true, (err: unknown) => {
        if (!(err instanceof ConcurrencyError)) throw err;
        return false;
      });
    if (await stored(0)) return;
    const { events, version } = await this.log.readAggregate(subject);
    if (!events.some((e) => e.type === 'ArtifactStored')) await stored(version);
  }

  /** Refused reads of an existing artifact are recorded on its log subject: isolation breaches leave a trace. */
  private async recordDenial(ref: ArtifactRef, g: GovernanceScope, code: string): Promise<void> {
    this.logger.warn({ msg: 'artifact read refused', artifact_id: ref.artifact_id, code, agent_name: g.agent_name, lane: g.lane, parent_run_id: g.parent_run_id });
    await this.log
      .append(artifactLogRef(ref.artifact_id), [{ type: 'ArtifactAccessDenied', data: { artifact_id: ref.artifact_id, code, ...who(g), caller_case_id: g.case_id ?? null }, metadata: links(g) }], {
        commandId: `artifact-denied:${ref.artifact_id}:${g.parent_run_id}:${code}`,
      })
      .catch((err) => this.logger.error({ msg: 'could not record a refused artifact read', artifact_id: ref.artifact_id, err: String(err) }));
  }
}

/** Bytes from a request's base64, within the store's limit and matching the sha256 the sender expects (if any). */
export function decodeArtifactBytes(contentBase64: string, expectedSha256: string | undefined, tooLarge: 'REQUEST.TOO_LARGE' | 'ARTIFACT.TOO_LARGE' = 'REQUEST.TOO_LARGE'): Uint8Array {
  return checkArtifactBytes(new Uint8Array(Buffer.from(contentBase64, 'base64')), expectedSha256, tooLarge);
}

/** The bytes, if within the store's limit and matching the sha256 the sender expects (if any). */
export function checkArtifactBytes(bytes: Uint8Array, expectedSha256: string | undefined, tooLarge: 'REQUEST.TOO_LARGE' | 'ARTIFACT.TOO_LARGE'): Uint8Array {
  if (bytes.length > ARTIFACT_MAX_BYTES) {
    throw new AppError(tooLarge, `The artifact is ${bytes.length} bytes; the limit is 8 MiB (${ARTIFACT_MAX_BYTES} bytes).`);
  }
  if (expectedSha256 !== undefined && expectedSha256 !== sha256Hex(bytes)) {
    throw new AppError('ARTIFACT.HASH_MISMATCH', undefined, [`expected sha256 ${expectedSha256}`, `content sha256 ${sha256Hex(bytes)}`]);
  }
  return bytes;
}

function mismatchDetails(check: ArtifactContentMismatch): string[] {
  return check.code === 'ARTIFACT.SIZE_MISMATCH'
    ? [`expected ${check.expected_size_bytes} bytes`, `stored ${check.actual_size_bytes} bytes`]
    : [`expected sha256 ${check.expected_sha256}`, `stored sha256 ${check.actual_sha256}`];
}

function who(g: GovernanceScope) {
  return { agent_name: g.agent_name, lane: g.lane, parent_run_id: g.parent_run_id, root_run_id: g.root_run_id };
}

// parent/root run ids link the record to the run tree without making it one of the run's own events.
function links(g: GovernanceScope) {
  return { parent_run_id: g.parent_run_id, root_run_id: g.root_run_id, ...(g.case_id ? { case_id: g.case_id } : {}), ...(g.correlation_id ? { correlation_id: g.correlation_id } : {}) };
}

// Names come from the caller; echo them only in a bounded, harmless form.
function label(value: string): string {
  const text = value.replace(/[^A-Za-z0-9_.:-]/g, '').slice(0, 64);
  return text || 'the caller';
}
