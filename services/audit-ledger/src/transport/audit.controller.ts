import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { AuditQueryDto, SUBJECTS } from '@runledger/contracts';
import type { StoredEvent } from '@runledger/event-log';
import { CachedDataKeys, DATA_KEYS, DeferredSettlement, LogConsumer, openDeep, RequestHandler, validateEmptyMessage, validateMessage } from '@runledger/messaging';
import { AuditLedgerService } from '../app/audit-ledger.service';
import { LEDGER_DURABLE } from '../app/audit-ledger.service';
import { AuditVerifier } from '../app/audit-verifier';
import { RunsIndexService } from '../app/runs-index.service';
import { ROW_HOLD_MS } from '../infra/folded-rows';

/** Largest batch of run events the ledger takes at once (batches grow only when events arrive faster than it chains). */
const LEDGER_BATCH = 256;
/**
 * How long events gather before the ledger pulls them (BurstPull): about one request's worth, so a quiet log costs one
 * wake-up, one chain append and one row write per run per request rather than per event. Requests never wait for the
 * ledger; a chain entry is at most this much later. 100 ms cut the ledger's CPU per sequential request 3.27 → 2.40 ms
 * (issue 22, bench/results.md) but came with a full e2e run 1,061 → 1,572 s (suites wait on chained rows): 25 until the
 * suites' waits are measured against it.
 */
const LEDGER_LINGER_MS = 25;

@Controller()
export class AuditController {
  constructor(
    private readonly ledger: AuditLedgerService,
    private readonly runsIndex: RunsIndexService,
    private readonly verifier: AuditVerifier,
    @Inject(DATA_KEYS) private readonly keys: CachedDataKeys,
  ) {}

  /**
   * One consumer in log order (the chain's order is the log's order) feeds the chain and the runs index in one
   * pass, in batches: each run event is delivered once, a batch's read-model rows are written together (one per run:
   * its summary, audit trail and a task run's decision audit record, issue 22), and a row of
   * a run still open is held up to ROW_HOLD_MS, so that a run that ends meanwhile is written once (issue 22); the
   * batch is acked (one ack of its last delivery: the durable acks all) once its rows are written; a row never written rejects the
   * settlement, so its batch is not acked (see FoldedRows, BatchSettler). Exclusive: with two ledger instances (a cluster) one consumes and the other stands by, so the order still holds.
   */
  // rl.log.run.>: runs of both formats (rl.log.run.{run_id} before issue 23, rl.log.run.{owner}.{run_id} since).
  @LogConsumer('rl.log.run.>', { durable: LEDGER_DURABLE, batch: LEDGER_BATCH, lingerMs: LEDGER_LINGER_MS, exclusive: true })
  async onRunEvents(@Payload() events: StoredEvent[]): Promise<DeferredSettlement> {
    const entries = await this.ledger.ingest(events);
    await this.runsIndex.ingest(events, entries, { holdMs: ROW_HOLD_MS });
    return { settled: this.runsIndex.settled() };
  }

  @RequestHandler(SUBJECTS.auditQuery)
  async query(@Payload() raw: unknown) {
    // The ledger indexes events as the log holds them (sealed); answers are opened, erased data reads as erased.
    return openDeep(this.keys, await this.ledger.query(validateMessage(AuditQueryDto, raw)));
  }

  // Empty requests (asyncapi): a body with fields is REQUEST.INVALID, not silently ignored.
  @RequestHandler(SUBJECTS.auditVerify)
  verify(@Payload() raw: unknown) {
    validateEmptyMessage(raw);
    return this.verifier.verify();
  }

  @RequestHandler(SUBJECTS.auditHead)
  head(@Payload() raw: unknown) {
    validateEmptyMessage(raw);
    return this.verifier.head();
  }

  @RequestHandler(SUBJECTS.auditCoverage)
  coverage(@Payload() raw: unknown) {
    validateEmptyMessage(raw);
    return this.ledger.coverage();
  }
}
