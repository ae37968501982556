import { startOpenAiStub, type OpenAiStub } from '@runledger/testing';
import { transcribeAudio } from './audio-transcription';

describe('Issue 7 real transcription: audio through the openai client transcription endpoint', () => {
  let stub: OpenAiStub;
  beforeAll(async () => {
    stub = await startOpenAiStub(() => ({ content: 'unused' }), (req) => ({
      text: 'I was fired. After I asked about overtime.',
      language: req.fields.language ?? 'en',
      duration: 4.2,
      segments: [{ start: 0, end: 1.5, text: ' I was fired. ' }, { start: 1.6, end: 4.2, text: 'After I asked about   overtime.' }],
    }));
  });
  afterAll(async () => stub?.stop());

  it('transcription.run: the audio bytes are uploaded with the model and language, and the measured segment times are kept', async () => {
    const audio = Buffer.from([0x49, 0x44, 0x33, 0x04, 0x00, 0x01, 0x02, 0x03]);
    const segments = await transcribeAudio({ baseURL: stub.baseURL, apiKey: 'sk-audio', model: 'whisper-test' }, audio, 'audio/mpeg', { language: 'en', maxSegments: 10, maxSegmentChars: 100 });
    expect(segments).toEqual([
      { index: 0, speaker: 'speaker', start_ms: 0, end_ms: 1500, text: 'I was fired.' },
      { index: 1, speaker: 'speaker', start_ms: 1600, end_ms: 4200, text: 'After I asked about overtime.' },
    ]);
    const req = stub.transcriptions[0]!;
    expect(req.file).toMatchObject({ filename: 'recording.mp3', contentType: 'audio/mpeg' });
    expect(req.file.bytes.equals(audio)).toBe(true);
    expect(req.fields).toMatchObject({ model: 'whisper-test', language: 'en', response_format: 'verbose_json' });
    expect(req.headers.authorization).toBe('Bearer sk-audio');
  });
});
