import { subAgentToolName, type AgentProfile, type ToolExecution, type ToolExecutor, type ToolSpec } from '@runledger/agent-session';
import { SessionReply, SUBJECTS, ToolListReply } from '@runledger/contracts';
import type { SessionGateway } from './session.gateway';
import { ToolGatewayClient } from '@runledger/service-clients';
import { Bus } from '@runledger/messaging';
import { governanceScopeOf, RETRY, type RunCreatedData, type RunEngine } from '@runledger/runs';
import { sessionRunIdOf } from '../domain/session-run';

/** Every tool the gateway offers now (rl.tool.list), as the model sees tools. */
export async function gatewayToolSpecs(bus: Bus): Promise<ToolSpec[]> {
  const reply = await bus.requestIdempotent<ToolListReply>(SUBJECTS.toolList, {}, { timeoutMs: 5_000, retryDelayMs: RETRY.catalog });
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
 * sub-agent tool starts a child session (in process: SessionGateway.startOwn). Call ids come from the journal, so a
 * call repeated after a crash lands on the same child run and gets its recorded outcome.
 */
export function sessionToolExecutor(bus: Bus, sessions: Pick<SessionGateway, 'startOwn'>, engine: RunEngine, profile: AgentProfile, subAgents: ReadonlyMap<string, string>): ToolExecutor {
  const run = engine.state.run!;
  const governance = governanceScopeOf(run, profile.lane ?? 'NONE');
  const tools = new ToolGatewayClient(bus);
  return {
    async execute(name, args, options): Promise<ToolExecution> {
      const callId = options.callId ?? name;
      const child = subAgents.get(name);
      if (child !== undefined) return startSubAgent(sessions, engine, run, child, callId, args, options.signal);
      // A tool call is asked again (same call id) while the gateway restarts.
      const res = await tools.invoke({ call_id: callId, tool_name: name, parameters: args, timeout_ms: options.timeoutMs, governance }, { retry: RETRY.childRun, signal: options.signal });
      if (res.status === 'ok') return { ok: true, output: res.result };
      return { ok: false, error: res.error ? `${res.error.error_code}: ${res.error.message}` : res.status };
    },
  };
}

/**
 * A sub-agent is a child run of the session's run, recorded on it (ChildRunStarted) before it is asked for, and carried
 * by decision's inbox like every session; its id derives from the call, so a resumed session joins the same child.
 */
async function startSubAgent(sessions: Pick<SessionGateway, 'startOwn'>, engine: RunEngine, run: RunCreatedData, agent: string, callId: string, args: Readonly<Record<string, unknown>>, signal: AbortSignal): Promise<ToolExecution> {
  const task = typeof args.task === 'string' ? args.task : JSON.stringify(args);
  const request_id = `${run.run_id}:${callId}`;
  let reply!: SessionReply;
  // The child's id is named in the request, so the run recorded here is the run the gateway opens.
  const childId = sessionRunIdOf(request_id, run.run_id);
  // No case_id: the child takes its parent's (a case id recorded before requests were held to CASE_ID's form stays usable).
  await engine.child(childId, agent, `sub-agent:${callId}`, async () => {
    reply = await sessions.startOwn(
      { agent, prompt: task, request_id, run_id: childId, parent_run_id: run.run_id, ...(run.user_id ? { user_id: run.user_id } : {}) },
      { retryDelayMs: RETRY.childRun, signal },
    );
  });
  const report = reply.result?.finalReport as { content?: string; content_json?: unknown } | undefined;
  if (reply.status === 'completed' && report) return { ok: true, output: report.content ?? report.content_json ?? null };
  return { ok: false, error: reply.error ? `${reply.error.error_code}: ${reply.error.message}` : `sub-agent ${agent} ended ${reply.status}` };
}
