import { startOpenAiStub, OpenAiStub, StubReply } from '@runledger/testing';
import { classifierFromEnv, LlmClassifier } from './classifier';

describe('LLM intent classifier (the real openai client against a local OpenAI-compatible server)', () => {
  let stub: OpenAiStub;
  let next: StubReply;

  beforeAll(async () => {
    stub = await startOpenAiStub(() => next);
  });
  afterAll(async () => stub?.stop());

  const classifier = () => new LlmClassifier({ baseURL: stub.baseURL, apiKey: 'test-key', model: 'stub-model', timeoutMs: 2_000 });

  it('Intent table via LLM: a well-formed model answer is used, confidence clamped to [0,1]', async () => {
    next = { content: '{"intent_type":"CREATE_TASK","confidence":1.7,"extracted_params":{"description":"call mom"}}' };
    const intent = await classifier().classify('please remember to call mom', [], false);
    expect(intent).toMatchObject({ intent_type: 'CREATE_TASK', confidence: 1, extracted_params: { description: 'call mom' } });
    // The call is recorded with the answer (decision keeps it with the classify step of the run).
    expect(intent.model_call).toMatchObject({ provider: 'intent', model: 'stub-model', status: 'ok', fell_back: false, tokens: { totalTokens: expect.any(Number) } });
    const sent = stub.requests[stub.requests.length - 1].body as { model: string; temperature: number; messages: Array<{ role: string; content: string }> };
    expect(sent).toMatchObject({ model: 'stub-model', temperature: 0 });
    expect(sent.messages[sent.messages.length - 1]).toEqual({ role: 'user', content: 'please remember to call mom' });
    // CONFIRM_YES / CONFIRM_NO are only offered while a confirmation is pending.
    expect(sent.messages[0].content).not.toContain('CONFIRM_YES');
  });

  it('JSON repair: a model answer with prose around slightly broken JSON is still understood', async () => {
    next = { content: "Sure! {intent_type: 'LIST_TASKS', confidence: 0.9, extracted_params: null" };
    expect((await classifier().classify('what is on my plate', [], false)).intent_type).toBe('LIST_TASKS');
  });

  it('Graceful degradation: an off-contract intent falls back to the rule classifier', async () => {
    next = { content: '{"intent_type":"CONFIRM_YES","confidence":0.99}' };
    // CONFIRM_YES is not allowed without a pending confirmation; the rules classify the text instead.
    expect((await classifier().classify('add task buy milk', [], false))).toMatchObject({
      intent_type: 'CREATE_TASK', extracted_params: { description: 'buy milk' }, model_call: { status: 'ok', fell_back: true, fallback_reason: 'off-contract answer' },
    });
  });

  it('Graceful degradation: a provider error (500) or timeout falls back to the rule classifier', async () => {
    next = { status: 500, error: { message: 'boom', type: 'server_error', code: 'internal' } };
    expect(await classifier().classify('show tasks', [], false)).toMatchObject({ intent_type: 'LIST_TASKS', model_call: { status: 'failed', fell_back: true, fallback_reason: expect.stringContaining('error') } });
    next = { content: '{"intent_type":"LIST_TASKS"}', delayMs: 3_000 };
    const started = Date.now();
    expect((await classifier().classify('delete buy milk', [], false)).intent_type).toBe('DELETE_TASK');
    expect(Date.now() - started).toBeLessThan(2_900);
  });

  it('configuration: the rules classifier is the offline default; INTENT_CLASSIFIER=llm selects the LLM', () => {
    expect(classifierFromEnv({}).name).toBe('rules');
    expect(classifierFromEnv({ INTENT_CLASSIFIER: 'llm', OPENAI_BASE_URL: stub.baseURL }).name).toBe('llm');
  });
});
