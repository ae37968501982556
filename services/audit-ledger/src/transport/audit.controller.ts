import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { AuditQueryDto, SUBJECTS } from '@runledger/contracts';
import type { StoredEvent } from '@runledger/event-log';
import { CachedDataKeys, DATA_KEYS, LogConsumer, openDeep, RequestHandler, validateMessage } from '@runledger/messaging';
import { AuditLedgerService } from '../app/audit-ledger.service';
import { AuditVerifier, LEDGER_DURABLE } from '../app/audit-verifier';

@Controller()
export class AuditController {
  constructor(private readonly ledger: AuditLedgerService, private readonly verifier: AuditVerifier, @Inject(DATA_KEYS) private readonly keys: CachedDataKeys) {}

  /** One consumer in log order: the chain's order is the log's order. */
  @LogConsumer('rl.log.run.*', { durable: LEDGER_DURABLE, concurrency: 1 })
  onRunEvent(@Payload() event: StoredEvent): Promise<void> {
    return this.ledger.ingest(event);
  }

  @RequestHandler(SUBJECTS.auditQuery)
  async query(@Payload() raw: unknown) {
    // The ledger indexes events as the log holds them (sealed); answers are opened, erased data reads as erased.
    return openDeep(this.keys, await this.ledger.query(validateMessage(AuditQueryDto, raw)));
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
