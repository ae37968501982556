import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DbReadRequestDto, DbResult, DbWriteRequestDto, SUBJECTS } from '@runledger/contracts';
import { RequestHandler, validateMessage } from '@runledger/messaging';
import { DbWriteService } from '../app/db-write.service';

@Controller()
export class DbController {
  constructor(private readonly db: DbWriteService) {}

  @RequestHandler(SUBJECTS.dbWrite)
  write(@Payload() raw: unknown): Promise<DbResult> {
    return this.db.write(validateMessage(DbWriteRequestDto, raw));
  }

  @RequestHandler(SUBJECTS.dbRead)
  read(@Payload() raw: unknown): Promise<DbResult> {
    return this.db.read(validateMessage(DbReadRequestDto, raw));
  }
}
