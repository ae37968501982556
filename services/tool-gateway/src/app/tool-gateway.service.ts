import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ToolCallAuditedData, ToolInvocationDto, ToolInvocationResult } from '@runledger/contracts';
import { executeTool, ToolExecutionResult, ToolRegistry } from '@runledger/agent-runtime';
import { authorize, AuthzRequest, authzInputsOf, sha256Hex as govSha256 } from '@runledger/governance';
import { AppError, Clock, ERROR_CODES, ErrorCode } from '@runledger/kernel';
import { Bus, CLOCK } from '@runledger/messaging';
import { PolicyCatalog } from '@runledger/policy-catalog';
import { CallerVerifier, childRequestHash, childRunCreatedOf, childRunId as childRunIdOf, RunRepository, runChildOnce, RunError, authzDecidedOf, toolCallOutcomeOf } from '@runledger/runs';
import { withInvocation } from '../tools/invocation-context';
import { GatewayLimits, truncateOutput, whileHeld } from './limits';

export const TOOL_REGISTRY = Symbol('TOOL_REGISTRY');
export const GATEWAY_LIMITS = Symbol('GATEWAY_LIMITS');

/** A claim's lease is the call's timeout plus this: time to record the outcome after the tool answered. */
const CLAIM_LEASE_MARGIN_MS = 2_000;

/** Tool-level failure codes (agent-runtime's vocabulary) as wire error codes. */
const TOOL_CODES: Record<string, ErrorCode> = {
  TIMEOUT: 'TOOL.TIMEOUT',
  TOOL_NOT_FOUND: 'TOOL.NOT_FOUND',
  INVALID_INPUT: 'TOOL.INVALID_INPUT',
  EXECUTION_FAILED: 'TOOL.FAILED',
  INVALID_OUTPUT: 'TOOL.FAILED',
};

/**
 * The error a caller sees for a failed tool: a stable code with its own message and retryable flag (a tool
 * that failed with a known code such as NOT_FOUND or DEPENDENCY.DOWN keeps it); tool-internal text stays in our logs.
 */
function toolError(code: string): RunError {
  const wire: ErrorCode = TOOL_CODES[code] ?? (code in ERROR_CODES ? (code as ErrorCode) : 'TOOL.FAILED');
  return { error_code: wire, message: ERROR_CODES[wire].message, retryable: ERROR_CODES[wire].retryable };
}

/**
 * The tool choke point: every tool call is a tool_gateway child run — authorised against the parent's pinned
 * policy, input-validated before any tool code runs, bounded by a timeout, truncated, frozen, audited — and
 * executed at most once per (parent run, call id).
 */
@Injectable()
export class ToolGatewayService {
  private readonly logger = new Logger('ToolGateway');
  /** This instance, as the owner of the tool calls it executes (EffectClaimed). */
  private readonly owner = `tool-gateway:${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

  constructor(
    private readonly runs: RunRepository,
    private readonly callers: CallerVerifier,
    private readonly policies: PolicyCatalog,
    private readonly bus: Bus,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(TOOL_REGISTRY) private readonly tools: ToolRegistry,
    @Inject(GATEWAY_LIMITS) private readonly limits: GatewayLimits,
  ) {}

  async invoke(inv: ToolInvocationDto): Promise<ToolInvocationResult> {
    const g = inv.governance;
    const childRunId = childRunIdOf('tool_gateway', g.parent_run_id, inv.call_id);
    const policy = await this.policies.resolve(g.policy_versions);
    const scope = { run_id: g.parent_run_id, user_id: g.user_id, case_id: g.case_id, ...(g.scope ?? {}), ...stringParams(inv.parameters) };
    // Claims are checked against what the calling run pinned before the lane is: a mismatch is a denial too.
    const request: AuthzRequest = { agent_name: g.agent_name, lane: g.lane, kind: 'tool', action: inv.tool_name, run_case_id: g.case_id, run_user_id: g.user_id, scope };
    const decision = await this.callers.decideChild(g, () => authorize(policy, request));
    const requestHash = childRequestHash({ tool_name: inv.tool_name, parameters: inv.parameters, governance: { ...g, parent_run_id: undefined } });
    const started = Date.now();
    const outcome = await runChildOnce<unknown>(
      this.runs,
      {
        created: childRunCreatedOf('tool_gateway', childRunId, g, { parameters: { tool_name: inv.tool_name, call_id: inv.call_id }, request_hash_sha256: requestHash }),
        authz: authzDecidedOf(decision, { lane: g.lane, action: inv.tool_name, policy_versions: g.policy_versions, inputs: authzInputsOf(request) }),
      },
      () => this.execute(inv, childRunId, requestHash),
      // The effect is claimed on the log: a retry of this call while it executes (here or on another instance)
      // waits for this attempt's outcome; the lease outlasts the tool's timeout, so only a crashed owner's runs out.
      { owner: this.owner, leaseMs: (inv.timeout_ms ?? this.limits.defaultTimeoutMs) + CLAIM_LEASE_MARGIN_MS, now: () => this.clock.now() },
    );
    return {
      child_run_id: childRunId, call_id: inv.call_id, tool_name: inv.tool_name, ...toolCallOutcomeOf(outcome.state),
      duration_ms: Date.now() - started,
      replayed: outcome.replayed,
    };
  }

  private async execute(inv: ToolInvocationDto, childRunId: string, requestHash: string) {
    const started = Date.now();
    const timeoutMs = inv.timeout_ms ?? this.limits.defaultTimeoutMs;
    // The race below does not stop the tool; the abort tells it not to start effects once the call is
    // recorded as timed out (else the log says "timeout" while the write lands later, and a retry duplicates it).
    const abandoned = new AbortController();
    const effects = { started: false };
    const result = await this.withTimeout(
      withInvocation({ child_run_id: childRunId, call_id: inv.call_id, governance: inv.governance, bus: this.bus, clock: this.clock, signal: abandoned.signal, effects }, async () => {
        const fault = this.limits.faults.get(inv.tool_name);
        if (fault?.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
        // Released, or abandoned at the call's timeout: the tool then runs as after a delay (and sees the abort).
        if (fault?.holdPath) await whileHeld(fault.holdPath, abandoned.signal);
        if (fault?.fail) return { success: false as const, toolName: inv.tool_name, error: { code: 'EXECUTION_FAILED', message: 'injected fault' } } as ToolExecutionResult;
        return executeTool(this.tools, inv.tool_name, inv.parameters);
      }),
      timeoutMs,
    );
    if (result === 'timeout') abandoned.abort();
    // A timeout after an effect was sent does not say the effect did not happen (its reply may be what was lost):
    // no outcome is recorded, the call stays open, and the caller's retry runs the tool again on the same ids,
    // which gets the effect's recorded outcome back instead of a second effect.
    if (result === 'timeout' && effects.started) {
      this.logger.warn({ msg: 'tool timed out with an effect in flight; outcome left open for the retry', tool: inv.tool_name, child_run_id: childRunId });
      throw new AppError('DEPENDENCY.DOWN', 'The tool did not finish in time and its effect has no recorded outcome yet; retry.');
    }
    const durationMs = Date.now() - started;
    const inputSha = govSha256(JSON.stringify(inv.parameters));
    // What audit_event.schema.json requires of every ToolCallAudited; the rest says what this gateway measured.
    const audited = { lane: inv.governance.lane, action: inv.tool_name, request_hash_sha256: requestHash, tool_name: inv.tool_name, call_id: inv.call_id, input_sha256: inputSha, duration_ms: durationMs };
    if (result === 'timeout' || !result.success) {
      const code: string = result === 'timeout' ? 'TIMEOUT' : String(result.error.code);
      if (result !== 'timeout') this.logger.warn({ msg: 'tool failed', tool: inv.tool_name, code, detail: result.error.message, child_run_id: childRunId });
      const error = toolError(code);
      return {
        status: 'failed' as const, error,
        audit: [{ type: 'ToolCallAudited', data: { ...audited, outcome: 'failure', status: code === 'TIMEOUT' ? 'timeout' : 'failed', error_code: error.error_code } satisfies ToolCallAuditedData }],
      };
    }
    const { output, truncated, originalBytes } = truncateOutput(result.output, this.limits.responseMaxBytes);
    if (truncated) this.logger.warn({ msg: 'tool output truncated', tool: inv.tool_name, actual_bytes: originalBytes, limit_bytes: this.limits.responseMaxBytes });
    const outputSha = govSha256(JSON.stringify(output));
    return {
      status: 'completed' as const,
      result: { output, truncated },
      response_hash_sha256: outputSha,
      audit: [{ type: 'ToolCallAudited', data: { ...audited, outcome: 'success', response_hash_sha256: outputSha, status: 'ok', output_sha256: outputSha, truncated, original_bytes: originalBytes } satisfies ToolCallAuditedData }],
    };
  }

  private withTimeout<T>(p: Promise<T>, ms: number): Promise<T | 'timeout'> {
    let timer: NodeJS.Timeout;
    return Promise.race([p, new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)))]).finally(() => clearTimeout(timer));
  }
}

/** Scope fields a tool's parameters name (case_id, client_session_id, user_id …) take part in the lane check. */
function stringParams(params: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).filter(([k, v]) => typeof v === 'string' && /(^|_)id$|_version$/.test(k))) as Record<string, string>;
}
