import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { AuditQueryDto, SUBJECTS } from '@runledger/contracts';
import type { StoredEvent } from '@runledger/event-log';
import { LogConsumer, RequestHandler, validateMessage } from '@runledger/messaging';
import { AuditLedgerService } from '../app/audit-ledger.service';
import { AuditVerifier, LEDGER_DURABLE } from '../app/audit-verifier';

@Controller()
export class AuditController {
  constructor(private readonly ledger: AuditLedgerService, private readonly verifier: AuditVerifier) {}

  /** One consumer in log order: the chain's order is the log's order, also with two instances sharing the durable (ordered). */
  @LogConsumer('rl.log.run.*', { durable: LEDGER_DURABLE, concurrency: 1, ordered: true })
  onRunEvent(@Payload() event: StoredEvent): Promise<void> {
    return this.ledger.ingest(event);
  }

  @RequestHandler(SUBJECTS.auditQuery)
  query(@Payload() raw: unknown) {
    return this.ledger.query(validateMessage(AuditQueryDto, raw));
  }

  @RequestHandler(SUBJECTS.auditVerify)
  verify() {
    return this.verifier.verify();
  }

  @RequestHandler(SUBJECTS.auditHead)
  head() {
    return this.verifier.head();
  }

  @RequestHandler(SUBJECTS.auditCoverage)
  coverage() {
    return this.ledger.coverage();
  }
}
