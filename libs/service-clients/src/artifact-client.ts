import { Injectable } from '@nestjs/common';
import { ArtifactGetResult, ArtifactPutRequest, ArtifactRef, GovernanceScope, SUBJECTS } from '@runledger/contracts';
import { AppError } from '@runledger/kernel';
import { Bus } from '@runledger/messaging';

/** Codes with which rl.artifacts.get refuses an input for good; the run records them as a denial. */
export const REFUSED_INPUT_CODES = new Set(['CASE.CROSS_CASE_DENIED', 'ARTIFACT.NOT_FOUND', 'ARTIFACT.HASH_MISMATCH', 'LANE.DENIED', 'RUN.UNKNOWN_CALLER', 'RUN.CLAIM_MISMATCH']);

export type FetchedArtifact = { ref: ArtifactRef; bytes: Uint8Array };
export type FetchOutcome = { ok: true; artifacts: FetchedArtifact[] } | { ok: false; code: string; reason: string };

/** rl.artifacts.* over the bus: db-write owns the artifact store and verifies every byte in and out. */
@Injectable()
export class ArtifactClient {
  constructor(private readonly bus: Bus) {}

  async put(bytes: Uint8Array, meta: Pick<ArtifactPutRequest, 'media_type' | 'kind' | 'name'>, governance: GovernanceScope): Promise<ArtifactRef> {
    return this.bus.request<ArtifactRef>(SUBJECTS.artifactsPut, { ...meta, content_base64: Buffer.from(bytes).toString('base64'), governance });
  }

  /** Reads every artifact in order; the first permanent refusal is returned, transient failures throw. */
  async fetchAll(ids: readonly string[], governance: GovernanceScope): Promise<FetchOutcome> {
    const artifacts: FetchedArtifact[] = [];
    for (const artifact_id of ids) {
      try {
        const got = await this.bus.request<ArtifactGetResult>(SUBJECTS.artifactsGet, { artifact_id, governance });
        artifacts.push({ ref: got.artifact_ref, bytes: new Uint8Array(Buffer.from(got.content_base64, 'base64')) });
      } catch (err) {
        if (err instanceof AppError && REFUSED_INPUT_CODES.has(err.code)) {
          return { ok: false, code: err.code, reason: `Artifact ${artifact_id.slice(0, 128)}: ${err.message}` };
        }
        throw err;
      }
    }
    return { ok: true, artifacts };
  }
}
