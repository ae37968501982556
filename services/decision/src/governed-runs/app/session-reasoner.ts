import type { SessionGateway } from '../../sessions/app/session.gateway';
import { RETRY } from '@runledger/runs';
import { AgentStepError } from '../domain/errors';
import type { IntakeAssessment } from '../domain/intake';
import type { InterviewNotes, InterviewPrompt, TranscriptSegment } from '../domain/interview';
import type { MappingResult, MappingSource } from '../domain/mapping';
import { reasonerOutputProblems, REASONER_SCHEMAS, type ReasonerTask } from '../domain/reasoner-output';
import type { AgentRunSpec } from '../domain/run-spec';
import { DeterministicReasoner, type AgentReasoner, type RunScopedReasoner } from './reasoner';
import { settingText } from '@runledger/kernel';

type OwnSessions = Pick<SessionGateway, 'startOwn'>;

/**
 * An LLM-backed reasoner built on agent sessions: each reasoning step is a child session of the governed run
 * (started in process, SessionGateway.startOwn; parent_run_id = the run), so every model call is governed, recorded and resumable; its
 * request id derives from the run and the task, so a resumed run gets the recorded answer. The answer must be a
 * JSON report of the task's shape (reasoner-output.ts); anything else fails the step before any write.
 */
export class SessionReasoner implements AgentReasoner {
  constructor(private readonly sessions: OwnSessions, private readonly spec: AgentRunSpec, private readonly profile: string) {}

  assessIntake(form: unknown, asOfDay: string): Promise<IntakeAssessment> {
    return this.ask('intake', 'Assess this client intake form.', { form, as_of_day: asOfDay });
  }

  draftInterviewNotes(segments: readonly TranscriptSegment[], prompts: readonly InterviewPrompt[]): Promise<InterviewNotes> {
    return this.ask('interview_notes', 'Draft interview notes from this transcript.', { segments, prompts });
  }

  mapCausesOfAction(sources: readonly MappingSource[], coaVersion: string): Promise<MappingResult> {
    return this.ask('mapping', 'Map the facts of these sources to causes of action.', { sources, coa_version: coaVersion });
  }

  private async ask<T>(task: ReasonerTask, instruction: string, input: unknown): Promise<T> {
    const prompt = `${instruction}\nAnswer with a JSON final report matching this JSON Schema:\n${JSON.stringify(REASONER_SCHEMAS[task])}\n\nInput:\n${JSON.stringify(input)}`;
    // No case_id: the session takes its parent run's (a case id recorded before requests were held to CASE_ID's form stays usable).
    const reply = await this.sessions.startOwn(
      { agent: this.profile, prompt, request_id: `${this.spec.run_id}:reason:${task}`, parent_run_id: this.spec.run_id },
      { retryDelayMs: RETRY.childRun },
    );
    const report = reply.result?.finalReport as { content?: string; content_json?: unknown } | undefined;
    if (reply.status !== 'completed' || !report) {
      throw new AgentStepError('REASONER.FAILED', `The ${this.profile} session ${reply.run_id} ended ${reply.status}${reply.error ? ` (${reply.error.error_code})` : ''}.`, false);
    }
    let answer: unknown = report.content_json;
    if (answer === undefined) {
      try {
        answer = JSON.parse(report.content ?? '');
      } catch {
        answer = report.content;
      }
    }
    const problems = reasonerOutputProblems(task, answer);
    if (problems.length > 0) throw new AgentStepError('REASONER.INVALID_OUTPUT', `The ${this.profile} session ${reply.run_id} answered an invalid ${task}: ${problems.join('; ')}.`, false);
    return answer as T;
  }
}

/**
 * Picks the reasoner per governed agent: RL_REASONER_PROFILES maps agent names to session profiles
 * (`{"INTAKE_AGENT":"intake-reasoner"}`); agents not named keep the deterministic rules (the offline default).
 */
export class ReasonerSelector implements RunScopedReasoner {
  private readonly deterministic = new DeterministicReasoner();

  constructor(private readonly sessions: OwnSessions, private readonly profiles: Readonly<Record<string, string>>) {}

  static fromEnv(sessions: OwnSessions, env: NodeJS.ProcessEnv): ReasonerSelector {
    const profiles = settingText('RL_REASONER_PROFILES', env);
    return new ReasonerSelector(sessions, profiles ? (JSON.parse(profiles) as Record<string, string>) : {});
  }

  forRun(spec: AgentRunSpec): AgentReasoner {
    const profile = this.profiles[spec.agent_name];
    return profile ? new SessionReasoner(this.sessions, spec, profile) : this.deterministic;
  }
}
