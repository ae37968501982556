/**
 * Shared real-component test harness: a private nats-server per test file, an OTLP
 * trace receiver, an OpenAI-compatible stub and small polling/temp-dir helpers.
 */
export { freePort, meetingInPairs, retryingTransient, sleep, tempDir, waitUntil, type TempDir, type WaitUntilOptions } from './helpers';
export {
  findNatsServerBinary,
  NATS_SERVER_MISSING_MESSAGE,
  startNatsServer,
  useNatsServer,
  attachNatsServer,
  describeNatsServer,
  type NatsServerDescriptor,
  TEST_ADMIN,
  type TestIdentity,
  type NatsServerHandle,
  type NatsServerOptions,
} from './nats-server';
export { startNatsCluster, type NatsClusterHandle } from './nats-cluster';
export { LogContracts, PROTO_CONTRACTS_DIR, type LoggedEvent, type SealedFieldRules } from './log-contracts';
export { normaliseId, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver';
export type { ReceivedMetricPoint } from './otlp-metrics';
export {
  startOpenAiStub,
  type ChatRequestBody,
  type OpenAiStub,
  type OpenAiStubHandler,
  type RecordedRequest,
  type StubCompletion,
  type StubError,
  type StubReply,
  type StubToolCall,
} from './openai-stub';
