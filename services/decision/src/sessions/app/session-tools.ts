import { subAgentToolName, type AgentProfile, type ToolExecution, type ToolExecutor, type ToolSpec } from '@runledger/agent-session';
import { GovernanceScope, SessionReply, SUBJECTS, ToolInvocationResult, ToolListReply } from '@runledger/contracts';
import { Bus } from '@runledger/messaging';
import { retryEvery, type RunCreatedData } from '@runledger/runs';

/** A tool call or a child session is asked again (same ids) while the gateway or decision restarts. */
const CHILD_RETRY = retryEvery(500, 20);

/** Every tool the gateway offers now (rl.tool.list), as the model sees tools. */
export async function gatewayToolSpecs(bus: Bus): Promise<ToolSpec[]> {
  const reply = await bus.requestIdempotent<ToolListReply>(SUBJECTS.toolList, {}, { timeoutMs: 5_000, retryDelayMs: retryEvery(500, 5) });
  return reply.tools.map((t) => ({ name: t.name, inputSchema: t.input_schema, mcpServer: t.source, ...(t.description ? { description: t.description } : {}) }));
}

/** The sub-agent tools of a profile: each starts a child session of that agent with the given task. */
export function subAgentSpecs(profile: AgentProfile): ToolSpec[] {
  return (profile.subAgents ?? []).map((id) => ({
    name: subAgentToolName(id),
    description: `Delegate a task to the ${id} agent; it answers with its final report.`,
    mcpServer: 'agents',
    inputSchema: { type: 'object', required: ['task'], additionalProperties: false, properties: { task: { type: 'string', minLength: 1 } } },
  }));
}

/**
 * The session's tool port in the decision service: every tool call goes to the tool gateway as a tool_gateway
 * child run of the session's run (under the profile's lane, checked against the run's pinned policy); a
 * sub-agent tool starts a child session over agents.session.start. Call ids come from the journal, so a
 * call repeated after a crash lands on the same child run and gets its recorded outcome.
 */
export function sessionToolExecutor(bus: Bus, run: RunCreatedData, profile: AgentProfile, subAgents: ReadonlyMap<string, string>): ToolExecutor {
  const governance: GovernanceScope = {
    parent_run_id: run.run_id, root_run_id: run.root_run_id, agent_name: run.agent_name, lane: profile.lane ?? 'NONE',
    policy_versions: run.policy_versions,
    ...(run.correlation_id ? { correlation_id: run.correlation_id } : {}),
    ...(run.case_id ? { case_id: run.case_id } : {}),
    ...(run.user_id ? { user_id: run.user_id } : {}),
  };
  return {
    async execute(name, args, options): Promise<ToolExecution> {
      const callId = options.callId ?? name;
      const child = subAgents.get(name);
      if (child !== undefined) return startSubAgent(bus, run, child, callId, args, options.signal);
      const res = await bus.requestIdempotent<ToolInvocationResult>(
        SUBJECTS.toolInvoke,
        { call_id: callId, tool_name: name, parameters: args, timeout_ms: options.timeoutMs, governance },
        { timeoutMs: options.timeoutMs + 5_000, retryDelayMs: CHILD_RETRY, signal: options.signal },
      );
      if (res.status === 'ok') return { ok: true, output: res.result };
      return { ok: false, error: res.error ? `${res.error.error_code}: ${res.error.message}` : res.status };
    },
  };
}

async function startSubAgent(bus: Bus, run: RunCreatedData, agent: string, callId: string, args: Readonly<Record<string, unknown>>, signal: AbortSignal): Promise<ToolExecution> {
  const task = typeof args.task === 'string' ? args.task : JSON.stringify(args);
  const reply = await bus.requestIdempotent<SessionReply>(
    SUBJECTS.agentSessionStart,
    { agent, prompt: task, request_id: `${run.run_id}:${callId}`, parent_run_id: run.run_id, ...(run.case_id ? { case_id: run.case_id } : {}), ...(run.user_id ? { user_id: run.user_id } : {}) },
    { timeoutMs: 600_000, retryDelayMs: CHILD_RETRY, signal },
  );
  const report = reply.result?.finalReport as { content?: string; content_json?: unknown } | undefined;
  if (reply.status === 'completed' && report) return { ok: true, output: report.content ?? report.content_json ?? null };
  return { ok: false, error: reply.error ? `${reply.error.error_code}: ${reply.error.message}` : `sub-agent ${agent} ended ${reply.status}` };
}
