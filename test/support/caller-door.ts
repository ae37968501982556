/** The `caller` identity's own doors (rl.caller.caller.*), as an integrator's client uses them: one place for the suites that test them. */
import type { NatsConnection } from '@nats-io/transport-node';
import type { AgentRunResponse } from '@runledger/contracts';
import { decodeReply, encodeJson } from '@runledger/messaging';
import type { TestStack } from './stack';

export type Answer = ReturnType<typeof decodeReply>;

/** The caller's own doors. The harness's `test-admin` (START, SESSION_START) is a caller of every case. */
export const OWN_START = 'rl.caller.caller.runs.start';
export const OWN_SESSION_START = 'rl.caller.caller.sessions.start';

export const runIdOf = (a: Answer) => (a.ok ? (a.body as AgentRunResponse).run_id : undefined);
export const errorOf = (a: Answer) => (a.ok ? (a.body as AgentRunResponse).error?.error_code : a.error.code);
export const errorMessageOf = (a: Answer) => (a.ok ? (a.body as AgentRunResponse).error?.message : a.error.message);

/** `get`: the suite's stack and caller connection, read at each call (they are made in its beforeAll). */
export function callerDoor(get: () => { stack: TestStack; caller: NatsConnection }) {
  /** As the caller, on its own inbox. */
  const ask = async (subject: string, body: unknown, timeoutMs = 60_000): Promise<Answer> => {
    const m = await get().caller.request(subject, body instanceof Uint8Array ? body : encodeJson(body), { timeout: timeoutMs });
    return decodeReply(m.data, m.headers);
  };
  /** As the caller, an input artifact on its own door: `bytes` (application/json) of `kind` for `agent_name` in `case_id`. */
  const ingestBytes = (case_id: string, agent_name: string, kind: string, bytes: Buffer | string) =>
    ask('rl.caller.caller.artifacts.ingest', { case_id, agent_name, kind, media_type: 'application/json', content_base64: Buffer.from(bytes).toString('base64') });
  const ingestJson = (case_id: string, agent_name: string, kind: string, content: unknown) => ingestBytes(case_id, agent_name, kind, JSON.stringify(content));
  /** The types of the events the log holds for a run. */
  const recorded = async (runId: string) => (await get().stack.runEvents(runId)).map((e) => e.type);
  return { ask, ingestBytes, ingestJson, recorded };
}
