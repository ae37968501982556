import { Inject, Injectable } from '@nestjs/common';
import { DbReadRequestDto, DbResult, DbWriteAuditedData, DbWriteRequestDto, GovernanceScope } from '@runledger/contracts';
import { DocumentInvalidError, type DocumentStore } from '@runledger/document-store';
import { DOCUMENT_STORE } from '@runledger/messaging';
import { authorize, AuthzRequest, authzInputsOf, getLane, PolicySet, sha256Hex } from '@runledger/governance';
import { AppError, deterministicUuid } from '@runledger/kernel';
import { PolicyCatalog } from '@runledger/policy-catalog';
import { CallerVerifier, childRequestHash, childRunCreatedOf, childRunId as childRunIdOf, RunRepository, runChildOnce, authzDecidedOf } from '@runledger/runs';
import { idField } from '../domain/documents';
import { inPartition, Partition, partitionFor, stamp } from './partition';

type Doc = Record<string, unknown>;

/**
 * The only writer of domain data. Each write is a db_write child run: authorised against the parent's pinned
 * lanes, partitioned by user or case, applied idempotently (derived ids, create-if-absent, revision checks)
 * and audited with a DbWriteAudited event. The shared knowledge plane is promotion's, not ours.
 */
@Injectable()
export class DbWriteService {
  constructor(private readonly runs: RunRepository, private readonly callers: CallerVerifier, private readonly policies: PolicyCatalog, @Inject(DOCUMENT_STORE) private readonly store: DocumentStore) {}

  async write(req: DbWriteRequestDto): Promise<DbResult> {
    if (req.collection.startsWith('shared_')) throw new AppError('LANE.DENIED', 'The shared knowledge plane is written only through promotion.');
    const g = req.governance;
    const policy = await this.policies.resolve(g.policy_versions);
    const action = `${req.operation}:${req.collection}`;
    const targetCase = typeof req.document?.case_id === 'string' ? req.document.case_id : undefined;
    const decision = await this.authorize(policy, g, action, targetCase);
    const childRunId = childRunIdOf('db_write', g.parent_run_id, req.write_id);
    const partition = partitionFor(getLane(policy, g.lane)?.isolation ?? 'case', g);
    const requestHash = childRequestHash({ collection: req.collection, operation: req.operation, document_id: req.document_id, document: req.document, patch: req.patch });
    const outcome = await runChildOnce<{ status: DbResult['status']; document?: Doc; previous?: Doc }>(
      this.runs,
      {
        created: childRunCreatedOf('db_write', childRunId, g, {
          parameters: { collection: req.collection, operation: req.operation, document_id: req.document_id ?? null }, request_hash_sha256: requestHash,
        }),
        authz: authzDecidedOf(decision, { lane: g.lane, action: action, policy_versions: g.policy_versions, inputs: authzInputsOf(authzRequest(g, action, targetCase)) }),
      },
      async () => {
        const audited = (data: Pick<DbWriteAuditedData, 'outcome' | 'status' | 'document_id'> & Partial<DbWriteAuditedData>): DbWriteAuditedData => ({
          lane: g.lane, action, request_hash_sha256: requestHash, collection: req.collection, operation: req.operation, case_id: g.case_id ?? null, ...data,
        });
        let applied: Awaited<ReturnType<DbWriteService['apply']>>;
        try {
          applied = await this.apply(req, partition, deterministicUuid(childRunId, 'document'));
        } catch (err) {
          // Input the store cannot keep (an id or value its rules refuse) fails the same way on every retry: the run
          // ends failed with it, recorded, so a retry is answered by the record instead of INTERNAL, retryable.
          if (!(err instanceof DocumentInvalidError)) throw err;
          const error = storeRefusal(err);
          return { status: 'failed', error, audit: [{ type: 'DbWriteAudited', data: audited({ outcome: 'failure', status: 'failed', document_id: req.document_id ?? null, document_sha256: null, error_code: error.error_code }) }] };
        }
        const docId = (applied.document?.[idField(req.collection)] as string | undefined) ?? req.document_id;
        const documentSha = applied.document ? sha256Hex(JSON.stringify(applied.document)) : null;
        return {
          status: 'completed',
          result: applied,
          audit: [{
            type: 'DbWriteAudited',
            data: audited({
              outcome: applied.status === 'ok' ? 'success' : 'failure', ...(documentSha ? { response_hash_sha256: documentSha } : {}),
              document_id: docId ?? null, status: applied.status, document_sha256: documentSha,
            }),
          }],
        };
      },
    );
    if (outcome.status === 'denied') return { child_run_id: childRunId, status: 'denied', error: outcome.error };
    if (outcome.status === 'failed') return { child_run_id: childRunId, status: 'failed', error: outcome.error };
    const r = outcome.result!;
    return { child_run_id: childRunId, status: r.status, ...(r.document ? { document: strip(r.document) } : {}), ...(r.previous ? { previous: strip(r.previous) } : {}) } as DbResult;
  }

  async read(req: DbReadRequestDto): Promise<DbResult> {
    const g = req.governance;
    const policy = await this.policies.resolve(g.policy_versions);
    const targetCase = typeof req.filter?.case_id === 'string' ? req.filter.case_id : undefined;
    const decision = await this.authorize(policy, g, `read:${req.collection}`, targetCase, false);
    if (decision.decision === 'deny') return { status: 'denied', error: { error_code: decision.code, message: decision.reason, retryable: false } };
    const partition = partitionFor(getLane(policy, g.lane)?.isolation ?? 'case', g);
    try {
      const col = this.store.collection<Doc>(req.collection);
      if (req.document_id) {
        const doc = await col.get(req.document_id);
        return inPartition(doc?.value, partition) ? { status: 'ok', document: strip(doc!.value) } : { status: 'not_found' };
      }
      const filter = scalarFilter(req.filter);
      const docs = await col.find(partition.field ? { ...filter, [partition.field]: partition.value } : filter, { limit: req.limit ?? 100 });
      return { status: 'ok', documents: docs.map((d) => strip(d.value)) };
    } catch (err) {
      // A read the store refuses for its input (a filter field name it cannot query) is the request's fault: the same on every retry.
      if (err instanceof DocumentInvalidError) throw new AppError('REQUEST.INVALID', storeRefusal(err).message);
      throw err;
    }
  }

  /** Claims first (against what the calling run pinned), then the lane; a write opens a child run, so an allowed write of a finished caller is refused. */
  private async authorize(policy: PolicySet, g: GovernanceScope, action: string, targetCase?: string, opensChild = true) {
    const byPolicy = () => authorize(policy, authzRequest(g, action, targetCase));
    if (opensChild) return this.callers.decideChild(g, byPolicy);
    const mismatch = await this.callers.check(g);
    return mismatch ? { decision: 'deny' as const, ...mismatch } : byPolicy();
  }

  private async apply(req: DbWriteRequestDto, p: Partition, derivedId: string): Promise<{ status: DbResult['status']; document?: Doc; previous?: Doc }> {
    const col = this.store.collection<Doc>(req.collection);
    const id = req.document_id ?? derivedId;
    if (req.operation === 'append') {
      // Created atomically, no read first (one round trip fewer on the write path); a document already there is
      // this write's retry when it is in the caller's partition, and is not the caller's to see when it is not.
      const { created, doc } = await col.create(id, stamp({ ...(req.document ?? {}), [idField(req.collection)]: id }, p));
      if (!created && !inPartition(doc.value, p)) return { status: 'not_found' };
      return { status: 'ok', document: doc.value };
    }
    const existing = await col.get(id);
    const mine = existing && inPartition(existing.value, p) ? existing : null;
    switch (req.operation) {
      case 'upsert': {
        if (existing && !mine) return { status: 'not_found' };
        const doc = await col.put(id, stamp({ ...(mine?.value ?? {}), ...(req.document ?? {}), [idField(req.collection)]: id }, p));
        return { status: 'ok', document: doc.value, ...(mine ? { previous: mine.value } : {}) };
      }
      case 'update': {
        if (!mine) return { status: 'not_found' };
        const doc = await col.replace(id, stamp({ ...mine.value, ...(req.patch ?? req.document ?? {}) }, p), mine.revision);
        return { status: 'ok', document: doc.value, previous: mine.value };
      }
      case 'delete': {
        if (!mine) return { status: 'not_found' };
        await col.delete(id, mine.revision);
        return { status: 'ok', previous: mine.value };
      }
    }
  }
}

function authzRequest(g: GovernanceScope, action: string, targetCase?: string): AuthzRequest {
  return {
    agent_name: g.agent_name, lane: g.lane, kind: 'db_write', action, run_case_id: g.case_id, target_case_id: targetCase, run_user_id: g.user_id,
    scope: { run_id: g.parent_run_id, user_id: g.user_id, case_id: g.case_id, ...(g.scope ?? {}) },
  };
}

/** The partition owner is ours to enforce, not the caller's to see. */
function strip(doc: Doc): Doc {
  const { owner_id: _owner, ...rest } = doc;
  return rest;
}

/** What the caller is told of input the store refused: its problem in the store's words (never the value, a stack or a subject). */
function storeRefusal(err: DocumentInvalidError): { error_code: 'REQUEST.INVALID'; message: string; retryable: false } {
  return { error_code: 'REQUEST.INVALID', message: `The document store refuses this request: ${err.problem}.`, retryable: false };
}

function scalarFilter(filter: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(filter ?? {})) {
    if (k === 'owner_id') continue; // the partition decides ownership
    if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) out[k] = v;
    else throw new AppError('REQUEST.INVALID', `Filter field ${k} must be a scalar.`);
  }
  return out;
}
