import { Inject, Injectable } from '@nestjs/common';
import type { DocumentStore } from '@runledger/document-store';
import { DOCUMENT_STORE } from '@runledger/messaging';
import { AUDIT_DECISIONS } from '../domain/audit-chain';
import { conversationRecords, type DecisionAuditRecord } from '../domain/audit-decisions';
import { RunsIndexService } from './runs-index.service';

/**
 * The contract-000 decision audit records as rl.audit.query by conversation_id answers them (issue 22, fewer
 * messages): each task-assistant run's record is in its runs-index row, written with it. A data directory written
 * before also holds `audit_decisions` documents (one per run, keyed by run id): read as they are, never written; a
 * record in both is answered once.
 */
@Injectable()
export class AuditDecisions {
  constructor(
    private readonly index: RunsIndexService,
    @Inject(DOCUMENT_STORE) private readonly store: DocumentStore,
  ) {}

  /** One user's records of the conversation in timestamp order, the last `limit` (conversationRecords: never two users' mixed). */
  async ofConversation(conversationId: string, limit: number, userId?: string): Promise<ReturnType<typeof conversationRecords>> {
    const [earlier, rows] = await Promise.all([
      this.store.collection<DecisionAuditRecord>(AUDIT_DECISIONS).find({ conversation_id: conversationId }),
      this.index.rowsOfConversation(conversationId),
    ]);
    return conversationRecords(earlier.map((d) => d.value), rows, limit, userId);
  }
}
