/**
 * runledger agent — run one agent session (contract 002) against the configured providers and print its final report.
 *
 *   runledger agent --config <file> --prompt "<text>"
 *                   [--prompt-file <file>] [--model <provider/model>]... [--format markdown|text|json|…]
 *                   [--max-turns N] [--json] [--verbose]
 *
 *   runledger agent --agent <profile-id> --prompt "<text>" [--request-id ID] [--json] [connection flags]   (over the bus: agent-bus.ts)
 *
 * Configuration is layered (§7): --config, ./.ai-agent.json, the prompt file's directory, this script's directory,
 * ~/.ai-agent/ai-agent.json, /etc/ai-agent/ai-agent.json. The tools of the config's `mcpServers` (stdio `command` or
 * Streamable HTTP `url`) are offered as `<server>__<tool>`. --json prints the whole AIAgentResult instead of the report.
 * --log <file> records the session's events in a local log (scripts/cli/agent-log.ts); running again with the same
 * file resumes the session from it instead of repeating completed model requests and tool calls.
 *
 * Exit codes (§2): 0 success, 1 session failure (including auth/quota), 3 an MCP server failed to start,
 * 4 invalid arguments or configuration, 5 a tool schema or the output schema does not compile.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { ToolRegistry } from '@runledger/agent-runtime';
import { openLocalLog } from './agent-log';
import { printable, printableLines, terminalJson } from './format';
import {
  accountingOf,
  connectMcpServers,
  durableSession,
  exitCodeFor,
  registryTools,
  loadAgentConfig,
  modelsFromConfig,
  resolveSessionConfig,
  routeModels,
  runSession,
  sessionInputFromConfig,
  systemClock,
  timerSleeper,
  type AIAgentResult,
  type McpServerConfig,
  type ToolExecutor,
  type ToolSpec,
  type CliOutcome,
  type SessionConfigInput,
  type SessionPorts,
} from '@runledger/agent-session';

export const USAGE = `usage: runledger agent --config <file> --prompt "<text>" [--prompt-file <file>] [--model <provider/model>]... [--format <fmt>] [--max-turns N] [--log <events.jsonl>] [--json] [--verbose]
       runledger agent --agent <profile-id> --prompt "<text>" [--request-id ID] [--json] [--server URL] [--creds FILE | --nats-user U --nats-password P | --context NAME] [--inbox-prefix PREFIX]
  --config   a local session against the config's providers and MCP servers
  --agent    a registered profile, run by the decision service over the bus (rl.caller.<identity>.sessions.start) as a caller (on the
             local stack .data/credentials/caller.nk); the same --request-id joins the same session
exit codes: 0 success, 1 session failure, 3 an MCP server failed to start (--config) or the stack cannot be reached or
refused (--agent), 4 invalid arguments or configuration (or an unknown agent), 5 a tool or output schema does not compile`;

/** Where the command reads and writes; tests pass their own. */
export interface CliIo {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly home?: string;
  readonly systemDir?: string;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

function processIo(): CliIo {
  return {
    cwd: process.cwd(),
    env: process.env,
    home: os.homedir(),
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
  };
}

interface Options {
  config?: string;
  prompt?: string;
  promptFile?: string;
  models: string[];
  format?: string;
  maxTurns?: number;
  log?: string;
  json: boolean;
  verbose: boolean;
  help: boolean;
}

class UsageError extends Error {}

function parseArgs(args: readonly string[]): Options {
  const opts: Options = { models: [], json: false, verbose: false, help: false };
  for (let i = 0; i < args.length; i++) {
    const flag = args[i]!;
    if (flag === '--json') opts.json = true;
    else if (flag === '--verbose') opts.verbose = true;
    else if (flag === '--help' || flag === '-h') opts.help = true;
    else {
      const value = args[i + 1];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`missing value for ${flag}`);
      i++;
      if (flag === '--config') opts.config = value;
      else if (flag === '--prompt') opts.prompt = value;
      else if (flag === '--prompt-file') opts.promptFile = value;
      else if (flag === '--model') opts.models.push(value);
      else if (flag === '--format') opts.format = value;
      else if (flag === '--log') opts.log = value;
      else if (flag === '--max-turns') {
        opts.maxTurns = Number(value);
        if (!Number.isInteger(opts.maxTurns) || opts.maxTurns < 1) throw new UsageError('--max-turns must be a positive integer');
      } else throw new UsageError(`unknown option ${flag}`);
    }
  }
  if (!opts.help && opts.prompt === undefined && opts.promptFile === undefined) throw new UsageError('--prompt or --prompt-file is required');
  return opts;
}

function reportText(result: AIAgentResult): string {
  const r = result.finalReport;
  if (!r) return '';
  if (r.content !== undefined) return r.content;
  return JSON.stringify(r.content_json ?? r.messages ?? null, null, 2);
}

async function run(args: readonly string[], io: CliIo): Promise<CliOutcome> {
  let opts: Options;
  try {
    opts = parseArgs(args);
  } catch (e) {
    return { kind: 'invalid_arguments', message: `${(e as Error).message}\n${USAGE}` };
  }
  if (opts.help) {
    io.stdout(`${USAGE}\n`);
    return { kind: 'informational' };
  }
  let prompt = opts.prompt ?? '';
  if (opts.promptFile) {
    try {
      prompt = await readFile(path.resolve(io.cwd, opts.promptFile), 'utf8');
    } catch (e) {
      return { kind: 'invalid_arguments', message: `cannot read --prompt-file: ${(e as Error).message}` };
    }
  }

  const loaded = await loadAgentConfig(
    {
      cwd: io.cwd,
      ...(opts.config ? { configPath: opts.config } : {}),
      ...(opts.promptFile ? { promptPath: opts.promptFile } : {}),
      ...(process.argv[1] ? { binaryDir: path.dirname(path.resolve(process.argv[1])) } : {}),
      ...(io.home ? { home: io.home } : {}),
      ...(io.systemDir ? { systemDir: io.systemDir } : {}),
    },
    io.env,
  );
  if (!loaded.ok) return { kind: 'config_error', message: loaded.error };
  const { config } = loaded.value;
  const fromConfig = sessionInputFromConfig(config, opts.models.length > 0 ? opts.models : undefined);
  if (!fromConfig.ok) return { kind: 'config_error', message: fromConfig.errors.join('; ') };
  const base = fromConfig.input;
  const mcp = await mcpTools(config.mcpServers, config.queues);
  if ('outcome' in mcp) return mcp.outcome;
  try {
    return await session(mcp);
  } finally {
    await mcp.close();
  }

  async function session(mcp: McpTools): Promise<CliOutcome> {
    const input: SessionConfigInput = {
      ...base,
      tools: mcp.specs,
      ...(opts.format ? { expectedOutputFormat: opts.format } : {}),
      ...(opts.maxTurns ? { maxTurns: opts.maxTurns } : {}),
    };
    const checked = resolveSessionConfig(input);
    if (!checked.ok) return { kind: 'config_error', message: checked.errors.join('; ') };
    const models = modelsFromConfig(config, systemClock);
    if (!models.ok) return { kind: 'config_error', message: models.errors.join('; ') };

    const ports: SessionPorts = {
      model: routeModels(models.models),
      tools: mcp.executor,
      clock: systemClock,
      sleeper: timerSleeper,
      logger: {
        log: (e) => {
          if (opts.verbose || e.level === 'error') io.stderr(`${printable(`[${e.level}] ${e.event}: ${e.message}${opts.verbose && e.data ? ` ${terminalJson(e.data)}` : ''}`)}\n`);
        },
      },
    };
    const result = opts.log ? await logged(path.resolve(io.cwd, opts.log), input, prompt, ports) : await runSession(input, prompt, ports);
    if (opts.json) io.stdout(`${terminalJson(result, 2)}\n`);
    else if (result.success) io.stdout(`${printableLines(reportText(result))}\n`);
    if (!result.success) io.stderr(`agent session failed: ${printableLines(result.error ? `${result.error.kind}: ${result.error.message}` : reportText(result))}\n`);
    return { kind: 'session', result };
  }
}

/** The session on a local log file as its journaled runtime: resumed from it, and its result recorded in it. */
async function logged(file: string, input: SessionConfigInput, prompt: string, ports: SessionPorts): Promise<AIAgentResult> {
  const log = await openLocalLog(file);
  if (log.finished) return { ...log.finished, accounting: accountingOf(log.recorded) };
  const durable = durableSession(ports, log.runtime, { recorded: log.recorded });
  // The nonce derives from the file, so a resumed session offers the same XML slots.
  const nonce = createHash('sha256').update(`nonce:${file}`).digest('hex').slice(0, 8);
  const result = await runSession(input, prompt, { ...durable.ports, nonce: () => nonce });
  await durable.settle();
  const final = { ...result, accounting: durable.accounting() };
  await log.finish(final);
  return final;
}

interface McpTools {
  specs: ToolSpec[];
  executor: ToolExecutor;
  close: () => Promise<void>;
}

/** Connects the config's MCP servers: a server that fails to start is exit 3, a tool schema that does not compile exit 5. */
async function mcpTools(servers: Readonly<Record<string, unknown>>, queues: Readonly<Record<string, { concurrent?: number }>>): Promise<{ outcome: CliOutcome } | McpTools> {
  const configs = Object.fromEntries(Object.entries(servers).map(([name, s]) => {
    const src = s as Record<string, unknown>;
    return [name, (typeof src.url === 'string' ? { ...src, type: 'http' } : { ...src, type: 'stdio' }) as McpServerConfig];
  }));
  const failures: string[] = [];
  const connections = await connectMcpServers(
    { mcpServers: configs, queues: Object.fromEntries(Object.entries(queues).map(([n, q]) => [n, { concurrent: q.concurrent ?? 32 }])) },
    (server, error) => failures.push(`${server}: ${error.message}`),
  );
  const close = async () => void (await Promise.all(connections.map((c) => c.close().catch(() => undefined))));
  if (failures.length > 0) {
    await close();
    return { outcome: { kind: 'mcp_init_failed', message: `MCP server failed to start: ${failures.join('; ')}` } };
  }
  const registry = new ToolRegistry();
  for (const tool of connections.flatMap((c) => c.tools)) {
    const registered = registry.register(tool);
    if (!registered.ok) {
      await close();
      return { outcome: { kind: 'schema_validation_failed', message: `tool ${tool.name}: ${registered.message}` } };
    }
  }
  const { specs, executor } = registryTools(registry, 'mcp');
  return { specs: specs.map((s) => ({ ...s, mcpServer: s.name.split('__')[0] })), executor, close };
}

export async function main(args: string[], io: CliIo = processIo()): Promise<number> {
  // --agent names a registered profile: the decision service runs the session over the bus.
  // Over the bus only with --agent: its messaging stack is loaded then, not for a local session or --help.
  if (args.includes('--agent')) return (require('./agent-bus') as typeof import('./agent-bus')).runOverBus(args, io);
  let outcome: CliOutcome;
  try {
    outcome = await run(args, io);
  } catch (e) {
    outcome = { kind: 'internal_error', message: e instanceof Error ? e.message : String(e) };
  }
  if (outcome.kind !== 'session' && outcome.kind !== 'informational') io.stderr(`runledger agent: ${printableLines(outcome.message)}\n`);
  return exitCodeFor(outcome);
}
