import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { ArtifactGetRequestDto, ArtifactGetResult, ArtifactPutRequestDto, ArtifactRef, SUBJECTS } from '@runledger/contracts';
import { RequestHandler, validateMessage } from '@runledger/messaging';
import { ArtifactsService } from './artifacts.service';

@Controller()
export class ArtifactsController {
  constructor(private readonly artifacts: ArtifactsService) {}

  @RequestHandler(SUBJECTS.artifactsPut)
  put(@Payload() raw: unknown): Promise<ArtifactRef> {
    return this.artifacts.put(validateMessage(ArtifactPutRequestDto, raw));
  }

  @RequestHandler(SUBJECTS.artifactsGet)
  get(@Payload() raw: unknown): Promise<ArtifactGetResult> {
    return this.artifacts.get(validateMessage(ArtifactGetRequestDto, raw));
  }
}
