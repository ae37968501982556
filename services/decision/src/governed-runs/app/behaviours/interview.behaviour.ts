import type { ArtifactRef } from '@runledger/governance';
import { LANES } from '../../domain/agents';
import { AgentStepError, invalidInput } from '../../domain/errors';
import type { TranscriptionResult } from '@runledger/contracts';
import type { InterviewNotes, InterviewPrompt } from '../../domain/interview';
import { textOf } from '../../domain/text';
import { AgentBehaviour, outputOf, StepRuntime, unknownStep } from './behaviour';
import { entityWrite, inputsOfKind, performWrites, readJson, runDocumentId, WriteRecord } from './inputs';

const TOOLS = LANES.interviewCapture;
const WRITES = LANES.intakeWrites;

interface Session {
  client_session_id: string;
  recording_ref: ArtifactRef | null;
  dictation: boolean;
}

type Transcription = Pick<TranscriptionResult, 'transcription_id' | 'segments' | 'word_count' | 'duration_ms'>;

/** The session id comes from parameters, else from a client_session artifact ({client_session_id}). */
async function session(rt: StepRuntime): Promise<Session> {
  let id = textOf(rt.spec.parameters.client_session_id);
  const context = inputsOfKind(rt.spec, 'client_session')[0];
  if (!id && context) id = textOf((await readJson(rt, WRITES, context) as { client_session_id?: unknown } | null)?.client_session_id);
  if (!id) throw invalidInput('INTERVIEW_AGENT needs a client_session_id (parameter or client_session artifact).');
  const recording = inputsOfKind(rt.spec, 'interview_recording')[0] ?? null;
  if (!recording) throw invalidInput('INTERVIEW_AGENT needs an interview_recording input artifact.');
  return { client_session_id: id, recording_ref: recording, dictation: rt.spec.parameters.dictation === true };
}

/**
 * INTERVIEW_AGENT (§4.3): every capture tool through a tool_gateway child run in lane TOOL_INTERVIEW_CAPTURE,
 * every write through a db_write child run in lane WRITE_INTAKE_ARTIFACTS.
 */
export const interviewBehaviour: AgentBehaviour = {
  async runStep(stepId: string, rt: StepRuntime): Promise<unknown> {
    const scope = () => ({ case_id: rt.spec.case_id, client_session_id: outputOf<Session>(rt.outputs, 'read').client_session_id });
    switch (stepId) {
      case 'read':
        return session(rt);
      case 'prompt': {
        const next = (await rt.tool(TOOLS, 'prompt', 'interview.prompt.next', { ...scope(), answered_prompt_ids: [] })) as { prompts: InterviewPrompt[] };
        return { prompts: next.prompts };
      }
      case 'transcribe': {
        const s = outputOf<Session>(rt.outputs, 'read');
        // Dictation brackets the capture when the session was dictated live; the recording is what it produced.
        const dictation = s.dictation ? ((await rt.tool(TOOLS, 'dictation-start', 'dictation.start', scope())) as { dictation_id: string }) : null;
        // The tool reads the recording itself: the sha256 of the caller's reference travels along so it transcribes
        // exactly those bytes (ARTIFACT.HASH_MISMATCH otherwise), not whatever the id holds.
        const recording = { audio_artifact_id: s.recording_ref!.artifact_id, audio_sha256: s.recording_ref!.sha256 };
        const t = (await rt.tool(TOOLS, 'transcribe', 'transcription.run', { ...scope(), ...recording })) as Transcription;
        if (dictation) await rt.tool(TOOLS, 'dictation-stop', 'dictation.stop', { ...scope(), dictation_id: dictation.dictation_id });
        return { transcription_id: t.transcription_id, segments: t.segments, word_count: t.word_count, duration_ms: t.duration_ms };
      }
      case 'status': {
        const { transcription_id } = outputOf<Transcription>(rt.outputs, 'transcribe');
        const status = (await rt.tool(TOOLS, 'status', 'transcription.status', { ...scope(), transcription_id })) as { state: string };
        if (status.state !== 'completed') throw new AgentStepError('DEPENDENCY_DOWN', `Transcription ${transcription_id} is ${status.state}.`, true);
        return status;
      }
      case 'notes':
        return rt.reasoner.draftInterviewNotes(outputOf<Transcription>(rt.outputs, 'transcribe').segments, outputOf<{ prompts: InterviewPrompt[] }>(rt.outputs, 'prompt').prompts);
      case 'publish': {
        const t = outputOf<Transcription>(rt.outputs, 'transcribe');
        const notes = outputOf<InterviewNotes>(rt.outputs, 'notes');
        const transcript = await rt.effects.putJson(WRITES, 'transcript', 'transcript.json', { ...scope(), ...t });
        const noteRef = await rt.effects.putJson(WRITES, 'interview_notes', 'interview_notes.json', { ...scope(), transcription_id: t.transcription_id, ...notes });
        return { artifacts: [transcript, noteRef] };
      }
      case 'persist': {
        const t = outputOf<Transcription>(rt.outputs, 'transcribe');
        const notes = outputOf<InterviewNotes>(rt.outputs, 'notes');
        const [transcript, noteRef] = outputOf<{ artifacts: ArtifactRef[] }>(rt.outputs, 'publish').artifacts;
        const base = { ...scope(), source_run_id: rt.spec.run_id };
        const writes = [
          {
            write_id: 'transcript', collection: 'transcripts', operation: 'append' as const, document_id: runDocumentId(rt.spec, 'transcript'),
            document: { ...base, transcription_id: t.transcription_id, artifact_id: transcript.artifact_id, sha256: transcript.sha256, segment_count: t.segments.length, word_count: t.word_count },
          },
          {
            write_id: 'interview-notes', collection: 'interview_notes', operation: 'append' as const, document_id: runDocumentId(rt.spec, 'interview_notes'),
            document: { ...base, artifact_id: noteRef.artifact_id, sha256: noteRef.sha256, notes: notes.notes.map((n) => ({ topic: n.topic, prompt_id: n.prompt_id, summary: n.summary })) },
          },
          ...notes.entities.map((e) => entityWrite(rt.spec, e)),
        ];
        return { writes: await performWrites(rt, WRITES, writes) };
      }
      default:
        return unknownStep('INTERVIEW_AGENT', stepId);
    }
  },

  outcome(outputs) {
    const t = outputOf<Transcription>(outputs, 'transcribe');
    return {
      output_artifacts: outputOf<{ artifacts: ArtifactRef[] }>(outputs, 'publish').artifacts,
      result: {
        transcription_id: t.transcription_id, segment_count: t.segments.length, word_count: t.word_count,
        topics: outputOf<InterviewNotes>(outputs, 'notes').notes.map((n) => n.topic), writes: outputOf<{ writes: WriteRecord[] }>(outputs, 'persist').writes,
      },
    };
  },
};
