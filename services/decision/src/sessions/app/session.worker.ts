import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  durableSession, resolveSessionConfig, runSession, sessionInputFromConfig, subAgentToolName, systemClock, timerSleeper,
  type AgentProfile, type AIAgentResult, type SessionConfigInput,
} from '@runledger/agent-session';
import { Bus } from '@runledger/messaging';
import { sha256Hex } from '@runledger/kernel';
import { isTerminal, RunCreatedData, RunEngine, RunEvent, RunRepository } from '@runledger/runs';
import { KeyedLock } from '../../shared/keyed-lock';
import {
  DEFAULT_MAX_DELEGATION_DEPTH, delegationRefusal, journalOf, maxDepthOf, pinnedOf, SESSION_FINISHED, SESSION_STARTED, sessionParameters, terminalOf,
  type SessionFinishedData, type SessionSpec, type SessionStartedData,
} from '../domain/session-run';
import { ProfileCatalog } from '../infra/profile-catalog';
import { SESSION_MODELS, SessionModels } from '../infra/session-models';
import { engineRuntime } from './engine-runtime';
import { SessionGateway } from './session.gateway';
import { gatewayToolSpecs, sessionToolExecutor, subAgentSpecs } from './session-tools';

/**
 * Carries agent sessions (issue 7) from request to terminal event. The run opens with its pins (profile id,
 * version and hash; policy versions), records the tool set offered and the XML nonce, then runs the contract-002
 * loop on the run engine (`engineRuntime`): every model attempt is a journaled step and every tool call a journaled
 * tool call of the run, so a session picked up again (redelivery after a crash) is answered from its run's log and
 * goes on from the first call with no recorded outcome — no completed model request or tool call is sent twice.
 */
@Injectable()
export class SessionWorker {
  private readonly logger = new Logger('SessionWorker');
  private readonly locks = new KeyedLock();

  constructor(
    private readonly runs: RunRepository,
    private readonly profiles: ProfileCatalog,
    private readonly bus: Bus,
    @Inject(SESSION_MODELS) private readonly models: SessionModels,
    private readonly sessions: SessionGateway,
  ) {}

  carry(spec: SessionSpec): Promise<void> {
    return this.locks.run(spec.run_id, () => this.advance(spec));
  }

  private async advance(spec: SessionSpec): Promise<void> {
    const run = await RunEngine.load(this.runs, spec);
    if (isTerminal(run.state)) return;
    if (run.state.status !== 'running') {
      if (!(await run.open(this.opening(spec)))) return;
      const refusal = await this.delegationCheck(spec);
      if (refusal) return run.fail(refusal);
    }
    if (await run.cancelIfRequested()) return;
    const created = run.state.run!;
    const pin = pinnedOf(created);
    const pinned = pin && (await this.profiles.pinned(pin.agent, pin.version, pin.profile_sha256));
    if (!pin || !pinned) {
      return run.fail({ error_code: 'SESSION.UNKNOWN_AGENT', message: 'The pinned agent profile is not known.', retryable: false });
    }
    const profile = pinned.profile;
    // The run's events as the engine loaded them (its journal and SessionStarted): no second read.
    const events = run.session.loaded;
    let started = events.find((e) => e.type === SESSION_STARTED)?.data as SessionStartedData | undefined;
    if (!started) {
      started = await this.toolSet(profile, spec.run_id);
      await run.record([{ type: SESSION_STARTED, data: started }], 'session-started');
    }

    const input = this.sessionInput(profile, started);
    if (!input.ok) return this.finish(run, { success: false, error: { kind: 'invalid_config', message: input.errors.join('; ') }, conversation: [], accounting: [] });
    const subAgents = new Map((profile.subAgents ?? []).map((id) => [subAgentToolName(id), id]));
    const durable = durableSession(
      { model: this.models.model, tools: sessionToolExecutor(this.bus, this.sessions, run, profile, subAgents), clock: systemClock, sleeper: timerSleeper },
      engineRuntime(run, new Set(subAgents.keys())),
      { recorded: journalOf(events), budget: profile.budget ?? {} },
    );
    const result = await runSession(input.input, pin.prompt, { ...durable.ports, nonce: () => started.nonce });
    // An incomplete journal is not a result: give the command back; the next carrier resumes from the log.
    await durable.settle();
    await this.finish(run, { ...result, accounting: durable.accounting() });
  }

  private async finish(run: RunEngine, result: AIAgentResult): Promise<void> {
    const { accounting: _folded, ...finished } = result;
    const audit: RunEvent[] = [{ type: SESSION_FINISHED, data: finished satisfies SessionFinishedData }];
    const terminal = terminalOf(result);
    await (terminal.type === 'RunCompleted' ? run.complete(terminal.data, audit) : run.fail(terminal.data.error, audit));
    if (!result.success) this.logger.warn({ msg: 'session ended without success', run_id: run.runId, error: result.error?.kind });
  }

  private opening(spec: SessionSpec) {
    return {
      created: {
        run_id: spec.run_id, run_kind: 'agent' as const, agent_name: spec.role, root_run_id: spec.root_run_id, correlation_id: spec.correlation_id,
        ...(spec.parent_run_id ? { parent_run_id: spec.parent_run_id } : {}), ...(spec.case_id ? { case_id: spec.case_id } : {}), ...(spec.user_id ? { user_id: spec.user_id } : {}),
        contract_version: 'v1' as const, policy_versions: spec.policy_versions, input_artifacts: [], parameters: sessionParameters(spec), request_hash_sha256: spec.request_hash_sha256,
        ...(spec.requested_by ? { requested_by: spec.requested_by } : {}),
      },
      authz: { decision: 'allow' as const, action: `session:${spec.agent}`, policy_versions: spec.policy_versions },
    };
  }

  /** INV-DT-001/002 across services: the chain is read from the recorded ancestry, not from the request. */
  private async delegationCheck(spec: SessionSpec) {
    if (!spec.parent_run_id) return undefined;
    const chain: string[] = [];
    let parent: string | undefined = spec.parent_run_id;
    for (let hops = 0; parent && hops < 64; hops++) {
      const created: RunCreatedData | undefined = (await this.runs.load(parent)).state.run;
      const pin = created && pinnedOf(created);
      if (!pin) break;
      chain.unshift(pin.agent);
      parent = created.parent_run_id;
    }
    const root = chain[0] && (await this.profiles.resolve(chain[0]));
    return delegationRefusal(chain, spec.agent, root ? maxDepthOf(root.profile) : DEFAULT_MAX_DELEGATION_DEPTH);
  }

  /** The tools offered for the whole session, fixed at start: the profile's gateway tools and its sub-agents. */
  private async toolSet(profile: AgentProfile, runId: string): Promise<SessionStartedData> {
    const wanted = profile.tools ?? [];
    const offered = wanted.length > 0 ? await gatewayToolSpecs(this.bus) : [];
    const tools = wanted.flatMap((name) => offered.filter((t) => t.name === name));
    return { tools: [...tools, ...subAgentSpecs(profile)], nonce: sha256Hex(`nonce:${runId}`).slice(0, 8), missing_tools: wanted.filter((n) => !tools.some((t) => t.name === n)) };
  }

  private sessionInput(profile: AgentProfile, started: SessionStartedData): { ok: true; input: SessionConfigInput } | { ok: false; errors: string[] } {
    const { config } = this.models;
    const built = sessionInputFromConfig({ ...config, defaults: { ...config.defaults, ...profile.session, targets: profile.targets } });
    if (!built.ok) return built;
    const input: SessionConfigInput = { ...built.input, tools: started.tools, trace: { agentId: profile.id } };
    const checked = resolveSessionConfig(input);
    return checked.ok ? { ok: true, input } : { ok: false, errors: checked.errors };
  }
}
