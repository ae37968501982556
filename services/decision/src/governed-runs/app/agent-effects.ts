import { ArtifactGetResult, DbResult, ExportResult, GovernanceScope, PromotionResult, SUBJECTS, ToolInvocationResult } from '@runledger/contracts';
import { ToolGatewayClient } from '@runledger/service-clients';
import type { ArtifactRef } from '@runledger/governance';
import { AppError, artifactText } from '@runledger/kernel';
import { Bus } from '@runledger/messaging';
import { governanceScopeOf, type RetryPolicy } from '@runledger/runs';
import { AgentStepError, invalidInput, policyDenied } from '../domain/errors';
import { inputRefProblem } from '../domain/input-refs';
import type { AgentRunSpec } from '../domain/run-spec';

export interface EffectLimits {
  toolTimeoutMs: number;
  /** How a call that found no responder or no answer in time is asked again (RETRY.chokePoint; none in tests). */
  retry: RetryPolicy;
}

export interface DbWrite {
  write_id: string;
  collection: string;
  operation: 'append' | 'upsert';
  document_id: string;
  document: Record<string, unknown>;
}

/**
 * The privileged effects of one agent run, each through its choke point over the bus (§ non-negotiable:
 * agents never call tools or write storage themselves). Every call names the run as parent, the lane, and the
 * policy versions the run pinned, so the choke point checks it against exactly those versions.
 * Calls are idempotent by construction (call ids, write ids, content-addressed artifacts, promotion and export
 * ids derived from the run), which is what makes retrying a call that got no answer safe.
 */
export class AgentEffects {
  private readonly tools: ToolGatewayClient;

  constructor(private readonly bus: Bus, private readonly spec: AgentRunSpec, private readonly limits: EffectLimits) {
    this.tools = new ToolGatewayClient(bus);
  }

  governance(lane: string, scope: Record<string, string> = {}): GovernanceScope {
    return governanceScopeOf(this.spec, lane, scope);
  }

  async invokeTool(lane: string, callId: string, toolName: string, parameters: Record<string, unknown>): Promise<ToolInvocationResult> {
    return this.tools.invoke({ call_id: callId, tool_name: toolName, parameters, timeout_ms: this.limits.toolTimeoutMs, governance: this.governance(lane) }, { retry: this.limits.retry });
  }

  /** A db_write child run; a denial is the run's POLICY_DENIED, any other refusal a failure. */
  async write(lane: string, write: DbWrite, scope: Record<string, string> = {}): Promise<DbResult> {
    const result = await this.call<DbResult>(SUBJECTS.dbWrite, { ...write, governance: this.governance(lane, scope) });
    if (result.status === 'denied') throw policyDenied(`Writing ${write.operation}:${write.collection} was denied: ${result.error?.message ?? 'policy'}`);
    // A write db-write refuses for its input (REQUEST.INVALID, recorded) is the run's input problem, never retried.
    if (result.error?.error_code === 'REQUEST.INVALID') throw invalidInput(`Writing ${write.operation}:${write.collection} was refused: ${result.error.message}`);
    if (result.status !== 'ok') throw new AgentStepError('DEPENDENCY_DOWN', `Writing ${write.operation}:${write.collection} failed (${result.status}).`, result.error?.retryable ?? true);
    return result;
  }

  async putJson(lane: string, kind: string, name: string, value: unknown): Promise<ArtifactRef> {
    // Two-space JSON: readable by a human reviewer; deterministic because the values are.
    const content = Buffer.from(JSON.stringify(value, null, 2), 'utf8');
    return this.call<ArtifactRef>(SUBJECTS.artifactsPut, { content_base64: content.toString('base64'), media_type: 'application/json', kind, name, governance: this.governance(lane) });
  }

  /** Reads an input artifact and checks the bytes are the ones the caller's reference names. */
  async read(lane: string, ref: ArtifactRef): Promise<{ ref: ArtifactRef; text: string }> {
    let got: ArtifactGetResult;
    try {
      got = await this.call<ArtifactGetResult>(SUBJECTS.artifactsGet, { artifact_id: ref.artifact_id, governance: this.governance(lane) });
    } catch (err) {
      if (err instanceof AppError && err.code === 'ARTIFACT.NOT_FOUND') throw new AgentStepError('INVALID_INPUT', `Input artifact ${ref.artifact_id} does not exist.`);
      throw err;
    }
    // The reference must be the store's (bytes, kind, media type, case): a caller's start is checked before it is
    // queued; this holds it for every other spec too (a fork of a run recorded before that check).
    const problem = inputRefProblem(ref, got.artifact_ref);
    if (problem) throw new AgentStepError(problem.code, problem.reason);
    return { ref: got.artifact_ref, text: artifactText(Buffer.from(got.content_base64, 'base64')) };
  }

  promote(body: Record<string, unknown>, lane: string, scope: Record<string, string>): Promise<PromotionResult> {
    return this.call<PromotionResult>(SUBJECTS.promotionPromote, { ...body, governance: this.governance(lane, scope) }, 30_000);
  }

  exportBundle(body: Record<string, unknown>, lane: string): Promise<ExportResult> {
    return this.call<ExportResult>(SUBJECTS.exportBundle, { ...body, governance: this.governance(lane) }, 60_000);
  }

  /**
   * One request with retries while the choke point is unreachable (restarting, or a reply lost): the same
   * request again lands on the same child run, whose recorded outcome comes back instead of a second effect.
   */
  private call<T>(subject: string, body: unknown, timeoutMs = 15_000): Promise<T> {
    return this.bus.requestIdempotent<T>(subject, body, { timeoutMs, retryDelayMs: this.limits.retry });
  }
}
