import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { ExportRequestDto, ExportResult, SUBJECTS } from '@runledger/contracts';
import { RequestHandler, validateMessage } from '@runledger/messaging';
import { ExportService } from '../app/export.service';

@Controller()
export class ExportController {
  constructor(private readonly exports: ExportService) {}

  @RequestHandler(SUBJECTS.exportBundle)
  bundle(@Payload() raw: unknown): Promise<ExportResult> {
    return this.exports.bundle(validateMessage(ExportRequestDto, raw));
  }
}
