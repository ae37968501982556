/**
 * @runledger/agent-session — the agent session loop of contract 002: turns, retries and provider cycling,
 * tool limits, context guard, final report, accounting, configuration layers and the XML transport.
 * All I/O goes through ports (Model, ToolExecutor, Clock, Sleeper, SessionRecorder, SessionLogger);
 * `OpenAiChatModel` is one Model adapter, `ScriptedModel` and `FakeTime` serve tests.
 */

// Session
export { runSession } from './run-session';
export type { NextStep } from './app/run-turn';
export type {
  Clock,
  LogLevel,
  Model,
  ModelRequest,
  ModelResult,
  SessionLogEntry,
  SessionLogger,
  SessionPorts,
  SessionRecorder,
  SessionRuntime,
  SessionToolCall,
  Sleeper,
  ToolExecution,
  ToolExecutionOptions,
  ToolExecutor,
} from './ports';
export type * from './domain/types';
export {
  BATCH_TOOL,
  FINAL_REPORT_TOOL,
  SESSION_DEFAULTS,
  contextLimitOf,
  resolveSessionConfig,
  type ModelParams,
  type ProviderTarget,
  type ResolveConfigResult,
  type ResolvedTarget,
  type SessionConfig,
  type SessionConfigInput,
  type ToolTransport,
} from './domain/session-config';

// Pure building blocks (exposed for the decision service and for tests)
export {
  CONTEXT_BUDGET_STUB,
  EMPTY_RESPONSE_NOTICE,
  TOOL_TIMEOUT_STUB,
  toolFailedStub,
  truncationNotice,
  type ForcedFinalReason,
} from './domain/notices';
export { BACKOFF_INITIAL_MS, BACKOFF_MAX_MS, backoffMs, decideRetry, targetIndexForAttempt, type RetryDecision } from './domain/retry-policy';
export { evaluateGuard, type ContextCounters, type GuardVerdict } from './domain/context-guard';
export { parseToolArguments, type ParsedArguments } from './domain/tool-args';
export { truncateToolResponse, type TruncationResult } from './domain/truncation';
export { finalReportToolSpec } from './domain/final-report/tool-spec';
export { parseRetryAfter } from './domain/retry-after';
export { EXIT_CODES, exitCodeFor, type CliOutcome, type ExitCode } from './domain/exit-codes';

// Configuration (§7)
export {
  DEFAULT_QUEUE,
  parseTargetRef,
  sessionInputFromConfig,
  toAgentConfig,
  type AgentConfig,
  type DefaultsFileConfig,
  type ProviderFileConfig,
} from './domain/config/agent-config';
export { MissingVariableError, expandPlaceholders, type ExpansionSources } from './domain/config/expand';
export { parseEnvFile } from './domain/config/env-file';
export { deepMerge, mergeLayers, type ConfigLayer } from './domain/config/merge';
export { CONFIG_FILE, ENV_FILE, layerSources, loadAgentConfig, loadConfigLayers, type ConfigDiscovery, type LayerSource } from './infra/config-files';

// Adapters
export { OpenAiChatModel, type OpenAiChatModelOptions } from './infra/openai-chat-model';
export { classifyOpenAiError } from './infra/classify-openai-error';
export { openaiModule } from './infra/openai-module';
export { modelsFromConfig } from './infra/models-from-config';
export { systemClock, timerSleeper } from './infra/system-time';
export { randomNonce } from './infra/random-nonce';
export { routeModels } from './adapters/model-router';
export { registryTools } from './adapters/registry-tools';

// Test support
export { ScriptedModel, reply, type ScriptStep } from './testing/scripted-model';
export { FakeTime } from './testing/fake-time';

// Durable sessions: model attempts and tool calls as journaled steps and calls of a SessionRuntime
export { durableSession, llmStepId, toolCallId, type DurableSession, type LlmStepOutput, type SessionBudget } from './app/durable-session';
export { eventListRuntime, type JournalEvent } from './adapters/event-list-runtime';
export { executionOf, recordedOutcomeOf, type RecordedToolOutcome } from './domain/tool-record';
export { JOURNAL_EVENT_TYPES, accountingOf, journalEntryOf, journalEvent, usageOf, type JournalEntry, type JournalKind, type SessionUsage } from './domain/journal-events';
export { PROFILE_ID, registerProfiles, subAgentToolName, validateAgentProfile, type AgentProfile, type ProfileCheck, type RefusedProfile } from './domain/profile';
export { Queue, connectMcpServer, connectMcpServers, mcpToolName, type McpConfig, type McpConnection, type McpServerConfig } from './infra/mcp-client';
