import { Injectable } from '@nestjs/common';
import { assessIntake, IntakeAssessment } from '../domain/intake';
import { draftInterviewNotes, InterviewNotes, InterviewPrompt, TranscriptSegment } from '../domain/interview';
import { mapCausesOfAction, MappingResult, MappingSource } from '../domain/mapping';
import type { AgentRunSpec } from '../domain/run-spec';

/**
 * The reasoning port of the governed agents: the analysis each "reason" step performs. The default is the
 * deterministic rules of the domain folder; a model-backed implementation (the decision service's LLM client)
 * can be bound to AGENT_REASONER instead without touching the agents, because every step output is
 * checkpointed — a resumed run restores the answer it got instead of asking the model again.
 */
export interface AgentReasoner {
  assessIntake(form: unknown, asOfDay: string): Promise<IntakeAssessment>;
  draftInterviewNotes(segments: readonly TranscriptSegment[], prompts: readonly InterviewPrompt[]): Promise<InterviewNotes>;
  mapCausesOfAction(sources: readonly MappingSource[], coaVersion: string): Promise<MappingResult>;
}

/** A reasoner chosen per run (per agent), e.g. an LLM-backed one for some agents and the rules for others. */
export interface RunScopedReasoner {
  forRun(spec: AgentRunSpec): AgentReasoner;
}

export const AGENT_REASONER = Symbol('AGENT_REASONER');

export function reasonerFor(reasoner: AgentReasoner | RunScopedReasoner, spec: AgentRunSpec): AgentReasoner {
  return 'forRun' in reasoner ? reasoner.forRun(spec) : reasoner;
}

@Injectable()
export class DeterministicReasoner implements AgentReasoner {
  async assessIntake(form: unknown, asOfDay: string): Promise<IntakeAssessment> {
    return assessIntake(form, asOfDay);
  }

  async draftInterviewNotes(segments: readonly TranscriptSegment[], prompts: readonly InterviewPrompt[]): Promise<InterviewNotes> {
    return draftInterviewNotes(segments, prompts);
  }

  async mapCausesOfAction(sources: readonly MappingSource[], coaVersion: string): Promise<MappingResult> {
    return mapCausesOfAction(sources, coaVersion);
  }
}
