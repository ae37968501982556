import type { Provider, Type } from '@nestjs/common';
import { AgentRunGateway } from './app/agent-run.gateway';
import { AgentRunWorker } from './app/agent-run.worker';
import type { EffectLimits } from './app/agent-effects';
import { SessionGateway } from '../sessions/app/session.gateway';
import { AGENT_REASONER } from './app/reasoner';
import { ReasonerSelector } from './app/session-reasoner';
import { AGENT_RUN_LIMITS, AGENT_RUN_REPLY_TIMEOUT_MS } from './governed-runs.types';
import { AgentRunsController } from './transport/agent-runs.controller';
import { RunForkService } from './app/run-fork';
import { RunForkController } from './transport/run-fork.controller';
import { settingNumber } from '@runledger/kernel';
import { CALLER_GRANTS, callerGrantsFile, loadCallerGrants } from '@runledger/policy-catalog';
import { RETRY } from '@runledger/runs';

export const GOVERNED_RUNS_CONTROLLERS: Type[] = [AgentRunsController, RunForkController];

/**
 * Providers of the governed agent runs API. AGENT_REASONER picks the reasoner per agent: an LLM-backed one
 * built on agent sessions (RL_REASONER_PROFILES) or the deterministic rules, which need no LLM. Effects retry an unreachable choke point by RETRY.chokePoint (about 16 s: a restart).
 */
export function governedRunsProviders(env: NodeJS.ProcessEnv, toolTimeoutMs: number): Provider[] {
  const limits: EffectLimits = { toolTimeoutMs, retry: RETRY.chokePoint };
  return [
    AgentRunGateway, AgentRunWorker, RunForkService,
    { provide: AGENT_REASONER, useFactory: (sessions: SessionGateway) => ReasonerSelector.fromEnv(sessions, env), inject: [SessionGateway] },
    { provide: AGENT_RUN_LIMITS, useValue: limits },
    // A whole case workflow (four child runs) takes seconds; past this the reply says in progress and a repeat gets the outcome.
    { provide: AGENT_RUN_REPLY_TIMEOUT_MS, useValue: settingNumber('AGENT_RUN_REPLY_TIMEOUT_MS', env) },
    // Which cases a caller may start runs in (policy/callers.yaml, as for its ingest); read at start, a bad file stops decision.
    { provide: CALLER_GRANTS, useValue: loadCallerGrants(callerGrantsFile(env)) },
  ];
}
