import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { ARTIFACT_MAX_BYTES, ArtifactGetRequestDto, ArtifactGetResult, ArtifactPutRequestDto, ArtifactRef, SUBJECTS } from '@runledger/contracts';
import { RequestHandler, validateMessage } from '@runledger/messaging';
import { ArtifactsService } from './artifacts.service';

@Controller()
export class ArtifactsController {
  constructor(private readonly artifacts: ArtifactsService) {}

  // The content travels base64-encoded (4/3 of its bytes) with a small envelope; the service names the limit.
  @RequestHandler(SUBJECTS.artifactsPut, { maxBytes: Math.ceil((ARTIFACT_MAX_BYTES * 4) / 3) + 64 * 1024 })
  put(@Payload() raw: unknown): Promise<ArtifactRef> {
    return this.artifacts.put(validateMessage(ArtifactPutRequestDto, raw));
  }

  @RequestHandler(SUBJECTS.artifactsGet)
  get(@Payload() raw: unknown): Promise<ArtifactGetResult> {
    return this.artifacts.get(validateMessage(ArtifactGetRequestDto, raw));
  }
}
