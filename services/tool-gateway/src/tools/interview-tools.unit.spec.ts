import 'reflect-metadata';
import { executeTool } from '@runledger/agent-runtime';
import { buildToolRegistry } from './index';
import { INTERVIEW_TOOLS, parseRecording, transcribe } from './interview-tools';

describe('interview capture tools: the local transcriber', () => {
  it('segments labelled text into normalised, timed speaker turns, merging a speaker’s consecutive lines', () => {
    const segments = transcribe(parseRecording('Interviewer:  What   happened?\nClient: I was fired.\nI had asked about pay.\r\nClient: Twice.\n\nInterviewer: When?', 'text/plain; charset=utf-8'));
    expect(segments.map((s) => [s.speaker, s.text])).toEqual([
      ['interviewer', 'What happened?'],
      ['client', 'I was fired. I had asked about pay. Twice.'],
      ['interviewer', 'When?'],
    ]);
    expect(segments.map((s) => [s.start_ms, s.end_ms])).toEqual([[0, 800], [1300, 4900], [5400, 5800]]);
  });

  it('reads JSON utterances with offsets, and is deterministic', () => {
    const json = JSON.stringify({ utterances: [{ speaker: 'Client', text: 'Hello\u0007 there', offset_ms: 1000 }, { speaker: 'Client', text: 'again', offset_ms: 5000 }] });
    const once = transcribe(parseRecording(json, 'application/json'));
    expect(once).toEqual(transcribe(parseRecording(json, 'application/json')));
    expect(once.map((s) => [s.speaker, s.start_ms, s.text])).toEqual([['client', 1000, 'Hello there'], ['client', 5000, 'again']]);
    expect(() => parseRecording('%PDF', 'application/pdf')).toThrow(/cannot be transcribed/);
  });

  it('are registered with input schemas that require the lane’s scope (INV-TOOL-001)', async () => {
    const registry = buildToolRegistry();
    for (const name of Object.keys(INTERVIEW_TOOLS)) expect(registry.isToolAvailable(name)).toBe(true);
    const missing = await executeTool(registry, 'transcription.run', { case_id: 'c', text: 'Client: hi' });
    expect(missing).toMatchObject({ success: false, error: { code: 'INVALID_INPUT' } });
    const neither = await executeTool(registry, 'transcription.run', { case_id: 'c', client_session_id: 's' });
    expect(neither).toMatchObject({ success: false, error: { code: 'INVALID_INPUT' } });
    const prompt = await executeTool(registry, 'interview.prompt.next', { case_id: 'c', client_session_id: 's', answered_prompt_ids: ['p1-narrative'] });
    expect(prompt).toMatchObject({ success: true, output: { done: false, remaining: 4, prompt: { prompt_id: 'p2-timeline' } } });
  });
});
