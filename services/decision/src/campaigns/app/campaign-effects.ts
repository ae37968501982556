import { Injectable } from '@nestjs/common';
import { DbResult, GovernanceScope, SUBJECTS, ToolInvocationResult } from '@runledger/contracts';
import { getRole } from '@runledger/governance';
import { Bus } from '@runledger/messaging';
import { PolicyCatalog } from '@runledger/policy-catalog';
import { childRequestHash, governanceScopeOf, isTerminal, RETRY, RunEngine, RunError, RunRepository } from '@runledger/runs';
import { ToolGatewayClient } from '@runledger/service-clients';
import type { CampaignState } from '../domain/campaign-types';

export const CAMPAIGN_AGENT = 'CAMPAIGN_AGENT';
export const CAMPAIGN_LANE = 'CAMPAIGN_OUTREACH';
/** Roles that may decide campaign items, if the campaign's pinned roles policy knows them. */
export const OPERATOR_ROLES = ['CAMPAIGN_OPERATOR'] as const;

/**
 * One governed run of the controller (a cycle, or an operator's decision on an item): opened with its pins and
 * authorisation, closed with its outcome, so every effect it causes is a child run under a recorded caller and
 * the whole of it enters the audit chain. Effects go only through the choke points: tool-gateway and db-write.
 */
export class CampaignRun {
  private constructor(private readonly bus: Bus, readonly session: RunEngine, private readonly campaign: CampaignState) {}


  static async open(deps: CampaignRuns, campaign: CampaignState, runId: string, parameters: Record<string, unknown>, deny?: RunError): Promise<CampaignRun> {
    const session = await RunEngine.load(deps.runs, { run_id: runId, root_run_id: runId, case_id: campaign.case_id, correlation_id: campaign.campaign_id });
    const policy = await deps.policies.resolve(campaign.policy_versions);
    const known = getRole(policy, CAMPAIGN_AGENT) !== undefined;
    const refusal = deny ?? (known ? undefined : { error_code: 'ROLE.UNKNOWN', message: `${CAMPAIGN_AGENT} is not in the pinned roles policy.`, retryable: false });
    const action = String(parameters['action'] ?? 'campaign');
    await session.open({
      created: {
        run_id: runId, run_kind: 'agent', agent_name: CAMPAIGN_AGENT, root_run_id: runId, correlation_id: campaign.campaign_id, case_id: campaign.case_id,
        lane: CAMPAIGN_LANE, contract_version: 'v1', policy_versions: campaign.policy_versions, input_artifacts: [], parameters,
        request_hash_sha256: childRequestHash({ campaign_id: campaign.campaign_id, ...parameters }),
      },
      authz: refusal
        ? { decision: 'deny', lane: CAMPAIGN_LANE, action, code: refusal.error_code, reason: refusal.message, policy_versions: campaign.policy_versions }
        : { decision: 'allow', lane: CAMPAIGN_LANE, action, policy_versions: campaign.policy_versions },
      ...(refusal ? { denial: refusal } : {}),
    });
    return new CampaignRun(deps.bus, session, campaign);
  }

  get runId(): string {
    return this.session.runId;
  }

  governance(): GovernanceScope {
    const c = this.campaign;
    return governanceScopeOf({ run_id: this.runId, root_run_id: this.runId, correlation_id: c.campaign_id, agent_name: CAMPAIGN_AGENT, case_id: c.case_id, policy_versions: c.policy_versions }, CAMPAIGN_LANE);
  }

  invokeTool(callId: string, toolName: string, parameters: Record<string, unknown>, timeoutMs: number): Promise<ToolInvocationResult> {
    return new ToolGatewayClient(this.bus).invoke({ call_id: callId, tool_name: toolName, parameters, timeout_ms: timeoutMs, governance: this.governance() }, { retry: RETRY.chokePoint });
  }

  write(writeId: string, collection: string, operation: 'append' | 'upsert', documentId: string, document: Record<string, unknown>): Promise<DbResult> {
    return this.call<DbResult>(SUBJECTS.dbWrite, { write_id: writeId, collection, operation, document_id: documentId, document, governance: this.governance() });
  }

  async complete(result: Record<string, unknown>): Promise<void> {
    if (!isTerminal(this.session.state)) await this.session.complete({ output_artifacts: [], result });
  }

  async fail(error: RunError): Promise<void> {
    if (!isTerminal(this.session.state)) await this.session.fail(error);
  }

  /** Idempotent requests (call and write ids derive from the run): a lost reply or a restarting choke point is retried. */
  private call<T>(subject: string, body: unknown, timeoutMs = 15_000): Promise<T> {
    return this.bus.requestIdempotent<T>(subject, body, { timeoutMs, retryDelayMs: RETRY.chokePoint });
  }
}

/** Opens the controller's governed runs; one place holds what every such run needs. */
@Injectable()
export class CampaignRuns {
  constructor(readonly runs: RunRepository, readonly bus: Bus, readonly policies: PolicyCatalog) {}

  open(campaign: CampaignState, runId: string, parameters: Record<string, unknown>, deny?: RunError): Promise<CampaignRun> {
    return CampaignRun.open(this, campaign, runId, parameters, deny);
  }
}
