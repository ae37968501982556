import { DynamicModule, Module } from '@nestjs/common';
import { MessagingModule, ServiceRuntime } from '@runledger/messaging';
import { loadOperatorRoles, OperatorActions, PolicyCatalog } from '@runledger/policy-catalog';
import { RunRepository } from '@runledger/runs';
import { RunControlClient } from '@runledger/service-clients';
import { CAMPAIGN_CONTROLLERS, campaignProviders } from './campaigns/campaigns.providers';
import { ConversationRepository } from './conversation/conversation.repository';
import { GOVERNED_RUNS_CONTROLLERS, governedRunsProviders } from './governed-runs/governed-runs.providers';
import { InboxDispatcher } from './inbox/inbox.dispatcher';
import { RunCancellation } from './runs/run-cancellation';
import { RunWaiter } from './runs/run-waiter';
import { RunsController } from './runs/runs.controller';
import { CallerRuns } from './runs/caller-runs';
import { CallerRunsController } from './runs/caller-runs.controller';
import { ResolverController } from './resolver/resolver.controller';
import { RESOLVER_SETTINGS, resolverSettingsFrom, RunResolver } from './resolver/run-resolver';
import { REJECTED_LIMITS, rejectedLimitsFrom, RejectedRequestRecorder } from './task-assistant/rejected-request.recorder';
import { REPLY_TIMEOUT_MS, TaskAssistantGateway } from './task-assistant/task-assistant.gateway';
import { TaskAssistantController } from './task-assistant/task-assistant.controller';
import { SessionGateway, SESSION_REPLY_TIMEOUT_MS } from './sessions/app/session.gateway';
import { SessionWorker } from './sessions/app/session.worker';
import { ProfileCatalog } from './sessions/infra/profile-catalog';
import { SESSION_MODELS, sessionModelsFromEnv } from './sessions/infra/session-models';
import { SessionsController } from './sessions/transport/sessions.controller';
import { CLASSIFY_RETRY_BUDGET_MS, TOOL_CALL_TIMEOUT_MS, TOOL_RETRY_BUDGET_MS, TaskRunWorker } from './task-assistant/task-run.worker';
import { settingNumber } from '@runledger/kernel';

@Module({})
export class DecisionModule {
  static async forRuntime(runtime: ServiceRuntime): Promise<DynamicModule> {
    const policies = new PolicyCatalog(runtime.log);
    await policies.start();
    // Operators' roles (policy/operators.yaml): a bad file, or a known version with other content, stops decision.
    const operatorRoles = loadOperatorRoles();
    const operators = new OperatorActions(runtime.log, operatorRoles.policy, operatorRoles.yaml);
    await operators.start();
    const profiles = new ProfileCatalog(runtime.log, undefined, runtime.health);
    await profiles.start();
    const toolTimeoutMs = settingNumber('TOOL_TIMEOUT_MS');
    const classifyBudgetMs = settingNumber('CLASSIFY_RETRY_BUDGET_MS');
    return {
      module: DecisionModule,
      imports: [MessagingModule.forRuntime(runtime)],
      controllers: [TaskAssistantController, RunsController, CallerRunsController, ResolverController, SessionsController, ...GOVERNED_RUNS_CONTROLLERS, ...CAMPAIGN_CONTROLLERS],
      providers: [
        TaskAssistantGateway, TaskRunWorker, RunWaiter, RunCancellation, CallerRuns, RejectedRequestRecorder, ConversationRepository, InboxDispatcher,
        RunControlClient, RunResolver, { provide: RESOLVER_SETTINGS, useValue: resolverSettingsFrom(process.env) },
        ...governedRunsProviders(process.env, toolTimeoutMs),
        ...campaignProviders(process.env),
        { provide: PolicyCatalog, useValue: policies },
        { provide: OperatorActions, useValue: operators },
        SessionGateway, SessionWorker,
        { provide: ProfileCatalog, useValue: profiles },
        { provide: SESSION_MODELS, useValue: sessionModelsFromEnv() },
        { provide: SESSION_REPLY_TIMEOUT_MS, useValue: settingNumber('SESSION_REPLY_TIMEOUT_MS') },
        { provide: RunRepository, useValue: new RunRepository(runtime.log) },
        { provide: TOOL_CALL_TIMEOUT_MS, useValue: toolTimeoutMs },
        { provide: REJECTED_LIMITS, useValue: rejectedLimitsFrom(process.env) },
        { provide: TOOL_RETRY_BUDGET_MS, useValue: settingNumber('TOOL_RETRY_BUDGET_MS') },
        { provide: CLASSIFY_RETRY_BUDGET_MS, useValue: classifyBudgetMs },
        // The reply waits for classification (with its retries) and the tool timeout plus bookkeeping; past that
        // the run continues and the caller is told it is taking longer. A classifier restart must not read as slow.
        { provide: REPLY_TIMEOUT_MS, useValue: settingNumber('REPLY_TIMEOUT_MS', process.env, classifyBudgetMs + toolTimeoutMs * 2 + 5_000) },
      ],
    };
  }
}
