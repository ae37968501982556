import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, NatsConnection } from '@nats-io/transport-node';
import { ensureLogStream, EventLog } from '@runledger/event-log';
import { sha256Hex } from '@runledger/governance';
import type { Bus } from '@runledger/messaging';
import { PolicyCatalog } from '@runledger/policy-catalog';
import { RETRY, RunRepository } from '@runledger/runs';
import { startNatsServer, NatsServerHandle, waitUntil } from '@runledger/testing';
import { AgentRunSpec, hashRequest } from '../domain/run-spec';
import { AgentRunWorker } from './agent-run.worker';
import { DeterministicReasoner } from './reasoner';

const RECORDING = 'Interviewer: What happened?\nClient: My manager fired me after I asked about unpaid overtime under my contract.';

/**
 * The choke points, faked at the bus: answers like tool-gateway, db-write and the artifact store would, and
 * counts every call. `hang` makes one tool never answer, as if the process died while waiting for it.
 */
function fakeBus(calls: string[], hang?: string, stored: Record<string, { bytes: Buffer; ref: Record<string, unknown> }> = {}): Bus {
  const answer = async (subject: string, body: Record<string, unknown>): Promise<unknown> => {
    if (subject === 'rl.artifacts.get') {
      const { bytes, ref } = stored[String(body.artifact_id)];
      calls.push(`get:${String(ref.kind)}`);
      return { artifact_ref: ref, content_base64: bytes.toString('base64') };
    }
    if (subject === 'rl.tool.invoke') {
      const { call_id, tool_name } = body as { call_id: string; tool_name: string };
      calls.push(`tool:${call_id}`);
      if (tool_name === hang) return new Promise(() => undefined);
      const result = tool_name === 'interview.prompt.next'
        ? { prompts: [{ prompt_id: 'p1-narrative', topic: 'narrative', text: '?' }] }
        : tool_name === 'transcription.run'
          ? { transcription_id: randomUUID(), segments: [{ index: 0, speaker: 'client', start_ms: 0, end_ms: 4000, text: RECORDING.split('Client: ')[1] }], word_count: 13, duration_ms: 4000 }
          : { state: 'completed' };
      return { child_run_id: randomUUID(), call_id, tool_name, status: 'ok', result };
    }
    if (subject === 'rl.db.write') {
      calls.push(`write:${String(body.write_id)}`);
      return { child_run_id: randomUUID(), status: 'ok', document: body.document };
    }
    if (subject === 'rl.artifacts.put') {
      const bytes = Buffer.from(String(body.content_base64), 'base64');
      calls.push(`put:${String(body.kind)}`);
      return { artifact_id: `art-${sha256Hex(bytes).slice(0, 16)}`, sha256: sha256Hex(bytes), size_bytes: bytes.length, media_type: body.media_type, kind: body.kind };
    }
    throw new Error(`unexpected subject ${subject}`);
  };
  const request = (subject: string, body: unknown) => answer(subject, body as Record<string, unknown>);
  return { request, requestIdempotent: request } as unknown as Bus;
}

describe('AgentRunWorker over a real log: INV-CP-002 resume', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let runs: RunRepository;
  let policies: PolicyCatalog;

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect(server.connectOptions());
    const jsm = await jetstreamManager(nc);
    await ensureLogStream(jsm);
    const log = new EventLog(jetstream(nc), jsm, { producer: 'decision' /* the worker's runs are decision's (issue 23 run ownership) */, clock: { now: () => new Date('2026-11-22T10:00:00Z') } });
    runs = new RunRepository(log);
    policies = new PolicyCatalog(log);
    await policies.start();
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  const worker = (bus: Bus) => new AgentRunWorker(runs, policies, bus, new DeterministicReasoner(), { toolTimeoutMs: 1_000, retry: RETRY.none });

  it('a second worker resumes after the last checkpoint: completed steps are restored, never re-run', async () => {
    const request = {
      agent_name: 'INTERVIEW_AGENT', case_id: 'case-int', policy_versions: policies.currentVersions(),
      input_artifacts: [{ artifact_id: 'art-rec', sha256: sha256Hex(RECORDING), size_bytes: RECORDING.length, media_type: 'text/plain', kind: 'interview_recording', case_id: 'case-int' }],
      parameters: { client_session_id: 'session-1' },
    };
    const runId = randomUUID();
    const spec: AgentRunSpec = { ...request, run_id: runId, root_run_id: runId, correlation_id: runId, request_hash_sha256: hashRequest(request) };

    // The first worker dies (never hears back) inside transcription.run, after read and prompt were checkpointed.
    const before: string[] = [];
    void worker(fakeBus(before, 'transcription.run')).carry(spec);
    // prompt and transcribe run in parallel: the crash comes once prompt's checkpoint is in the log.
    const promptCheckpointed = async () => (await runs.load(runId)).events.some((e) => e.type === 'StepCompleted' && (e.data as { step_id: string }).step_id === 'prompt');
    await waitUntil(async () => before.includes('tool:transcribe') && (await promptCheckpointed()), { timeoutMs: 30_000, intervalMs: 20 });
    const after: string[] = [];
    await worker(fakeBus(after)).carry(spec);

    const { state, events } = await runs.load(runId);
    expect(state.status).toBe('completed');
    expect(before).toEqual(['tool:prompt', 'tool:transcribe']);
    // The resumed worker asks the interrupted call again (the gateway would answer its recorded outcome) and
    // carries on; the prompt step completed before the crash and is not run again.
    expect(after).toEqual(['tool:transcribe', 'tool:status', 'put:transcript', 'put:interview_notes', 'write:transcript', 'write:interview-notes']);
    expect(events.filter((e) => e.type === 'StepCompleted').map((e) => (e.data as { step_id: string }).step_id)).toEqual(['read', 'prompt', 'transcribe', 'status', 'notes', 'publish', 'persist']);
    expect(events.filter((e) => e.type === 'ToolCallRequested')).toHaveLength(3);
  });

  it('Probe finding (deep intake form): an input artifact nested deeper than the request bound (stored before ingest checked it) fails the run INVALID_INPUT at once, not a stack overflow retried until the resolver', async () => {
    const form = Buffer.from(`{"name":${'['.repeat(20_000)}${']'.repeat(20_000)}}`);
    const ref = { artifact_id: 'art-deep', sha256: sha256Hex(form), size_bytes: form.length, media_type: 'application/json', kind: 'client_intake_form', case_id: 'case-int' };
    const request = { agent_name: 'INTAKE_AGENT', case_id: 'case-int', policy_versions: policies.currentVersions(), input_artifacts: [ref], parameters: {} };
    const runId = randomUUID();
    const spec: AgentRunSpec = { ...request, run_id: runId, root_run_id: runId, correlation_id: runId, request_hash_sha256: hashRequest(request) };

    const calls: string[] = [];
    await worker(fakeBus(calls, undefined, { 'art-deep': { bytes: form, ref } })).carry(spec); // settles: nothing to give back to the inbox

    const { state, events } = await runs.load(runId);
    expect(state.status).toBe('failed');
    expect(state.error).toEqual({ error_code: 'INVALID_INPUT', message: 'Artifact art-deep (client_intake_form) is nested deeper than 32 levels.', retryable: false });
    expect(calls).toEqual(['get:client_intake_form']);
    expect(events.some((e) => e.type === 'StepCompleted')).toBe(false);
  });

  it('Input bounds (a lone UTF-16 surrogate is not well-formed text): an input artifact holding one (stored before ingest checked it) fails the run INVALID_INPUT at once, not INTERNAL retried when db-write refuses its document', async () => {
    const form = Buffer.from('{"name":"\\ud800"}');
    const ref = { artifact_id: 'art-lone', sha256: sha256Hex(form), size_bytes: form.length, media_type: 'application/json', kind: 'client_intake_form', case_id: 'case-int' };
    const request = { agent_name: 'INTAKE_AGENT', case_id: 'case-int', policy_versions: policies.currentVersions(), input_artifacts: [ref], parameters: {} };
    const runId = randomUUID();
    const spec: AgentRunSpec = { ...request, run_id: runId, root_run_id: runId, correlation_id: runId, request_hash_sha256: hashRequest(request) };

    const calls: string[] = [];
    await worker(fakeBus(calls, undefined, { 'art-lone': { bytes: form, ref } })).carry(spec);

    const { state } = await runs.load(runId);
    expect(state.status).toBe('failed');
    expect(state.error).toEqual({
      error_code: 'INVALID_INPUT', message: 'Artifact art-lone (client_intake_form) is not usable: property name is not well-formed text (a lone UTF-16 surrogate).', retryable: false,
    });
    expect(calls).toEqual(['get:client_intake_form']);
  });

  it('Probe finding (deep intake form): a step output the log cannot encode (too deep for JSON.stringify) fails the run STEP.OUTPUT_UNRECORDABLE at once, not a checkpoint retried until the resolver', async () => {
    const form = Buffer.from(JSON.stringify({ name: 'Dana' }));
    const ref = { artifact_id: 'art-form', sha256: sha256Hex(form), size_bytes: form.length, media_type: 'application/json', kind: 'client_intake_form', case_id: 'case-int' };
    const request = { agent_name: 'INTAKE_AGENT', case_id: 'case-int', policy_versions: policies.currentVersions(), input_artifacts: [ref], parameters: {} };
    const runId = randomUUID();
    const spec: AgentRunSpec = { ...request, run_id: runId, root_run_id: runId, correlation_id: runId, request_hash_sha256: hashRequest(request) };
    // A reasoner (a model, say) whose answer is nested 20,000 levels.
    const deep = JSON.parse(`${'['.repeat(20_000)}${']'.repeat(20_000)}`) as unknown;
    const reasoner = new (class extends DeterministicReasoner {
      override async assessIntake(f: unknown, day: string) {
        return { ...(await super.assessIntake(f, day)), deep } as Awaited<ReturnType<DeterministicReasoner['assessIntake']>>;
      }
    })();

    await new AgentRunWorker(runs, policies, fakeBus([], undefined, { 'art-form': { bytes: form, ref } }), reasoner, { toolTimeoutMs: 1_000, retry: RETRY.none }).carry(spec);

    const { state, events } = await runs.load(runId);
    expect(state.status).toBe('failed');
    expect(state.error).toEqual({ error_code: 'STEP.OUTPUT_UNRECORDABLE', message: 'The output of step assess cannot be recorded (nested too deep to encode).', retryable: false });
    expect(events.filter((e) => e.type === 'StepCompleted').map((e) => (e.data as { step_id: string }).step_id)).toEqual(['read']);
  });
});
