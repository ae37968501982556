import { Injectable } from '@nestjs/common';
import { SUBJECTS, ToolInvocation, ToolInvocationResult } from '@runledger/contracts';
import { Bus } from '@runledger/messaging';
import type { RetryPolicy } from '@runledger/runs';

/**
 * How much longer than the tool's own timeout a caller waits for the gateway's answer: the gateway answers within
 * the tool timeout, and the margin covers the bus and the child run's records around the call.
 */
export const TOOL_REPLY_MARGIN_MS = 5_000;

/** rl.tool.invoke over the bus: the one client of the tool gateway. */
@Injectable()
export class ToolGatewayClient {
  constructor(private readonly bus: Bus) {}

  /**
   * One tool call. `retry` is the call site's declared policy for a lost answer or a restarting gateway: the call id
   * names the tool_gateway child run, so a retried call gets that run's outcome, never a second effect.
   */
  invoke(invocation: ToolInvocation & { timeout_ms: number }, opts: { retry: RetryPolicy; signal?: AbortSignal }): Promise<ToolInvocationResult> {
    return this.bus.requestIdempotent<ToolInvocationResult>(SUBJECTS.toolInvoke, invocation, {
      timeoutMs: invocation.timeout_ms + TOOL_REPLY_MARGIN_MS, retryDelayMs: opts.retry, ...(opts.signal ? { signal: opts.signal } : {}),
    });
  }
}
