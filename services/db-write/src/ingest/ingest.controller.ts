import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { ArtifactGetResult, ArtifactIngestRequestDto, ArtifactRef, ARTIFACT_MAX_BYTES, CallerArtifactGetRequestDto, SUBJECTS } from '@runledger/contracts';
import { callerOf, RequestContext, RequestHandler, validateMessage } from '@runledger/messaging';
import { IngestService } from './ingest.service';

/** A caller's own artifact door (rl.caller.<identity>.artifacts.*): the identity is the subject's, see callerOf. */
@Controller()
export class IngestController {
  constructor(private readonly ingest: IngestService) {}

  // As rl.artifacts.put: base64 (4/3 of the bytes) and a small envelope; the service names the kind's own limit.
  @RequestHandler(SUBJECTS.callerArtifactsIngest, { maxBytes: Math.ceil((ARTIFACT_MAX_BYTES * 4) / 3) + 64 * 1024 })
  put(@Payload() raw: unknown, @Ctx() ctx: RequestContext): Promise<ArtifactRef> {
    const caller = callerOf(ctx);
    return this.ingest.ingest(caller, validateMessage(ArtifactIngestRequestDto, raw));
  }

  @RequestHandler(SUBJECTS.callerArtifactsGet)
  get(@Payload() raw: unknown, @Ctx() ctx: RequestContext): Promise<ArtifactGetResult> {
    const caller = callerOf(ctx);
    return this.ingest.get(caller, validateMessage(CallerArtifactGetRequestDto, raw));
  }
}
