import { evaluateGuard, flushNew } from '../domain/context-guard';
import type { PlannedCall } from '../domain/interpret-response';
import { CONTEXT_BUDGET_STUB, excessToolCallStub, toolFailedStub, unavailableToolStub, unparsableArgumentsStub } from '../domain/notices';
import { BATCH_TOOL } from '../domain/session-config';
import { parseToolArguments } from '../domain/tool-args';
import { estimateOutputTokens } from '../domain/tokens';
import type { ToolAccountingEntry } from '../domain/types';
import type { SessionState } from './session-state';
import { runTool, type ToolRun } from './tool-runner';
import type { TurnPlan } from './turn-plan';

/** What one planned call produced; the caller commits it (tool message or XML-PAST block). */
export interface CallResult {
  readonly call: PlannedCall;
  readonly content: string;
  readonly status: 'ok' | 'failed';
  readonly latency: number;
}

/** Tools requested so far this turn, batch entries included (§1 maxToolCallsPerTurn). */
interface TurnBudget {
  requested: number;
}

function mcpServerOf(state: SessionState, name: string): string {
  return state.config.tools.find((t) => t.name === name)?.mcpServer ?? 'local';
}

/**
 * §2 tool_preflight: before committing an output, flush `new` into `pending` and project with the output
 * added. An output that would overflow is replaced by the stub; the session then starts no new tools and
 * its next turn is a forced final turn.
 */
function guardOutput(state: SessionState, content: string): { content: string; overflow?: { originalTokens: number; replacementTokens: number } } {
  const tokens = estimateOutputTokens(content);
  state.counters = flushNew(state.counters);
  const verdict = evaluateGuard('tool_preflight', state.counters, state.config.targets, state.config.contextWindowBufferTokens, tokens);
  if (verdict.fits) return { content };
  state.toolBudgetExceeded = true;
  state.forcedFinal ??= 'context';
  const replacementTokens = estimateOutputTokens(CONTEXT_BUDGET_STUB);
  state.log('warn', 'context_guard_tool_dropped', 'tool output dropped: it would overflow the context window', {
    site: verdict.site,
    projected_tokens: verdict.projected,
    limit_tokens: verdict.limit,
    ...(verdict.remaining !== undefined ? { remaining_tokens: verdict.remaining } : {}),
    blocked: verdict.blocked,
    forcedFinalTurnReason: 'context',
  });
  return { content: CONTEXT_BUDGET_STUB, overflow: { originalTokens: tokens, replacementTokens } };
}

async function recordRun(state: SessionState, call: { name: string; rawArgs: string; source: 'native' | 'xml' }, run: ToolRun, extra: Partial<ToolAccountingEntry> = {}): Promise<void> {
  await state.recordTool({
    mcpServer: mcpServerOf(state, call.name),
    command: call.name,
    status: run.status,
    latency: run.latency,
    charactersIn: call.rawArgs.length,
    charactersOut: run.content.length,
    source: call.source,
    ...(run.error !== undefined ? { error: run.error } : {}),
    ...(run.truncated ? { truncated: run.truncated } : {}),
    ...extra,
  });
}

/** Why a requested tool may not start, or undefined when it may. */
function refusal(state: SessionState, plan: TurnPlan, name: string, budget: TurnBudget): string | undefined {
  if (budget.requested >= state.config.maxToolCallsPerTurn) return excessToolCallStub(state.config.maxToolCallsPerTurn);
  budget.requested++;
  if (!plan.runnable.has(name)) return unavailableToolStub(name, [...plan.runnable]);
  if (state.toolBudgetExceeded) return CONTEXT_BUDGET_STUB;
  return undefined;
}

/** agent__batch: each entry is a tool call of its own (limits, timeout, truncation, accounting); the combined output is not truncated (§1). */
async function runBatch(state: SessionState, plan: TurnPlan, call: PlannedCall, args: Readonly<Record<string, unknown>>, budget: TurnBudget): Promise<ToolRun> {
  const started = state.nowMs();
  const entries = Array.isArray(args.calls) ? (args.calls as unknown[]) : undefined;
  if (!entries) return { content: toolFailedStub('agent__batch needs a "calls" array'), status: 'failed', error: 'invalid batch', latency: 0 };
  const results: unknown[] = [];
  for (const [i, raw] of entries.entries()) {
    const entry = (typeof raw === 'object' && raw !== null ? raw : {}) as { id?: unknown; tool?: unknown; parameters?: unknown };
    const id = typeof entry.id === 'string' ? entry.id : String(i + 1);
    const tool = typeof entry.tool === 'string' ? entry.tool : '';
    const refused = tool === BATCH_TOOL ? unavailableToolStub(tool, [...plan.runnable]) : refusal(state, plan, tool, budget);
    if (refused !== undefined) {
      results.push({ id, tool, ok: false, error: refused });
      continue;
    }
    const params = typeof entry.parameters === 'object' && entry.parameters !== null && !Array.isArray(entry.parameters) ? (entry.parameters as Record<string, unknown>) : {};
    const run = await runTool(state, tool, params);
    await recordRun(state, { name: tool, rawArgs: JSON.stringify(params), source: call.source }, run);
    results.push(run.status === 'ok' ? { id, tool, ok: true, output: run.content } : { id, tool, ok: false, error: run.content });
  }
  return { content: JSON.stringify({ results }), status: 'ok', latency: state.nowMs() - started };
}

async function runCall(state: SessionState, plan: TurnPlan, call: PlannedCall, budget: TurnBudget): Promise<CallResult> {
  const stub = (content: string): CallResult => ({ call, content, status: 'failed', latency: 0 });
  // §11 xml: provider tool definitions are withheld, so XML slots are the only way to run a tool.
  if (call.source === 'native' && plan.interpret.transport === 'xml') return stub(toolFailedStub('tools are called through XML slots in this session'));
  if (call.name !== BATCH_TOOL) {
    const refused = refusal(state, plan, call.name, budget);
    if (refused !== undefined) return stub(refused);
  } else if (!plan.runnable.has(call.name)) return stub(unavailableToolStub(call.name, [...plan.runnable]));

  const args = parseToolArguments(call.rawArgs);
  if (!args.ok) {
    state.log('error', 'tool_arguments_unparsable', `dropped ${call.name}: arguments are not valid JSON`, { tool: call.name, raw: args.raw, error: args.error });
    return stub(unparsableArgumentsStub(args.error));
  }
  if (args.repairs.length > 0) {
    state.log('warn', 'tool_arguments_repaired', `repaired the arguments of ${call.name}`, { tool: call.name, steps: args.repairs, original: call.rawArgs, repaired: args.repaired });
  }

  const run = call.name === BATCH_TOOL ? await runBatch(state, plan, call, args.value, budget) : await runTool(state, call.name, args.value);
  const guarded = guardOutput(state, run.content);
  if (call.name !== BATCH_TOOL) {
    const overflow = guarded.overflow ? { status: 'failed' as const, error: 'context window budget exceeded', ...guarded.overflow } : {};
    await recordRun(state, call, run, overflow);
  }
  const status = guarded.overflow ? 'failed' : run.status;
  return { call, content: guarded.content, status, latency: run.latency };
}

/**
 * Runs the turn's tool calls in order, committing each result before the next call starts so every
 * tool_preflight projection sees the outputs already accepted this turn. Sequential on purpose: results
 * land in the order the model asked for them and the budget flags stop later calls deterministically.
 * Stubs (excess, not allowed, unparsable, budget) are committed without running anything.
 */
export async function runToolPhase(
  state: SessionState,
  plan: TurnPlan,
  calls: readonly PlannedCall[],
  commit: (result: CallResult) => void,
): Promise<CallResult[]> {
  const budget: TurnBudget = { requested: 0 };
  const results: CallResult[] = [];
  for (const call of calls) {
    const result = await runCall(state, plan, call, budget);
    commit(result);
    results.push(result);
  }
  return results;
}
