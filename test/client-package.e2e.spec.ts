import { createHash, randomUUID } from 'node:crypto';
import { connect, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { startNatsServer, type NatsServerHandle } from '@runledger/testing';
import type { ArtifactRef } from '@runledger/contracts';
import type { CoverageReport } from '@runledger/governance';
import { RunRepository } from '@runledger/runs';
import { decodeReply, encodeJson } from '@runledger/messaging';
import { installClientInScratchProject, NODE_TYPES_ROOT, TSC, type ScratchProject } from './support/client-package';
import { CASE_INPUTS, policyVersionsIn, putArtifact, SHIPPED_POLICY_DIR, uploader } from './support/governed-runs';
import { TestStack } from './support/stack';

jest.setTimeout(300_000);

const versions = policyVersionsIn(SHIPPED_POLICY_DIR);

// What the scratch project does, as an outside caller would write it: only @runledger/client, installed from its tarball.
const CALLER_SCRIPT = `
import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync } from 'node:fs';
import { context, propagation, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { connect, RunledgerError } from '@runledger/client';
const cfg = JSON.parse(readFileSync(process.env.RL_CONFIG, 'utf8'));
// The caller's own tracing, as an SDK would set it up (here with the API alone): a context manager, the W3C
// propagator, and an active span of the caller's trace around everything below.
const als = new AsyncLocalStorage();
context.setGlobalContextManager({
  active: () => als.getStore() ?? ROOT_CONTEXT, with: (ctx, fn, self, ...args) => als.run(ctx, () => fn.call(self, ...args)),
  bind: (_ctx, target) => target, enable() { return this; }, disable() { return this; },
});
propagation.setGlobalPropagator({
  inject(ctx, carrier, setter) { const sc = trace.getSpanContext(ctx); if (sc) setter.set(carrier, 'traceparent', '00-' + sc.traceId + '-' + sc.spanId + '-01'); },
  extract: (ctx) => ctx, fields: () => ['traceparent'],
});
const callerSpan = trace.wrapSpanContext({ traceId: cfg.traceId, spanId: 'a1b2c3d4e5f60718', traceFlags: TraceFlags.SAMPLED });
await context.with(trace.setSpan(ROOT_CONTEXT, callerSpan), async () => {
const client = await connect({ servers: cfg.servers, nkeySeed: { file: cfg.seedFile } });
const refusal = async (what) => {
  try { await what(); return { refused: false }; }
  catch (e) { return { refused: e instanceof RunledgerError, class: e.constructor.name, code: e.code, retryable: e.retryable, message: e.message }; }
};
const out = {};
try {
  const form = await client.artifacts.put({ caseId: cfg.caseId, agentName: 'INTAKE_AGENT', kind: 'client_intake_form', content: cfg.form, name: 'intake.json' });
  out.form = form;
  // An initial upload larger than one chunk: read back below in chunks.
  const upload = await client.artifacts.put({ caseId: cfg.caseId, agentName: 'INTAKE_AGENT', kind: 'initial_upload', content: cfg.uploadText, mediaType: 'text/plain', name: 'letter.txt' });
  // Started with a run id of the caller's choosing so it can be followed while it runs.
  const request = { agent_name: 'INTAKE_AGENT', case_id: cfg.caseId, run_id: cfg.runId, input_artifacts: [form, upload], parameters: {} };
  const started = client.runs.start(request);
  out.followed = [];
  for await (const event of client.runs.follow(cfg.runId)) out.followed.push({ seq: event.seq, type: event.type });
  out.response = await started;
  out.run = await client.runs.get(cfg.runId);
  out.outputs = [];
  for (const ref of out.run.output_artifacts) {
    const artifact = await client.artifacts.get(cfg.runId, ref.artifact_id);
    out.outputs.push({ kind: artifact.ref.kind, sha256: artifact.ref.sha256, json: artifact.json() });
  }
  out.inputRead = (await client.artifacts.get(cfg.runId, form.artifact_id)).json();
  const read = await client.artifacts.get(cfg.runId, upload.artifact_id, { chunkBytes: 256 * 1024 });
  out.uploadRead = { sha256: read.ref.sha256, size: read.bytes.length, same: read.text() === cfg.uploadText };
  out.cancelOwn = await client.runs.cancel(cfg.runId, 'no longer needed');
  out.runNotGranted = await client.runs.start({ agent_name: 'INTAKE_AGENT', case_id: cfg.otherCaseId, input_artifacts: [], parameters: {} });
  out.refusals = {
    otherRunGet: await refusal(() => client.runs.get(cfg.otherRunId)),
    otherRunFollow: await refusal(async () => { for await (const _e of client.runs.follow(cfg.otherRunId)) {} }),
    otherRunCancel: await refusal(() => client.runs.cancel(cfg.otherRunId)),
    otherSessionGet: await refusal(() => client.sessions.get(cfg.otherRunId)),
    otherRunArtifact: await refusal(() => client.artifacts.get(cfg.otherRunId, form.artifact_id)),
    artifactNotOfRun: await refusal(() => client.artifacts.get(cfg.runId, 'art-0000')),
    crossCaseInput: await refusal(() => client.artifacts.get(cfg.crossRunId, cfg.otherCaseArtifactId)),
    caseNotGranted: await refusal(() => client.artifacts.put({ caseId: cfg.otherCaseId, agentName: 'INTAKE_AGENT', kind: 'client_intake_form', content: cfg.form })),
    kindDenied: await refusal(() => client.artifacts.put({ caseId: cfg.caseId, agentName: 'INTAKE_AGENT', kind: 'promotion_ticket', content: { approved: true } })),
    oversize: await refusal(() => client.artifacts.put({ caseId: cfg.caseId, agentName: 'INTAKE_AGENT', kind: 'client_intake_form', content: { notes: 'x'.repeat(1024 * 1024) } })),
    wrongType: await refusal(() => client.artifacts.put({ caseId: cfg.caseId, agentName: 'INTAKE_AGENT', kind: 'client_intake_form', content: JSON.stringify(cfg.form), mediaType: 'text/plain' })),
    caseBeforeContent: await refusal(() => client.artifacts.put({ caseId: cfg.otherCaseId, agentName: 'INTAKE_AGENT', kind: 'client_intake_form', content: 'x'.repeat(2 * 1024 * 1024), mediaType: 'text/plain' })),
    notJson: await refusal(() => client.artifacts.put({ caseId: cfg.caseId, agentName: 'INTAKE_AGENT', kind: 'client_intake_form', content: 'name: Dana', mediaType: 'application/json' })),
  };
  // scope 'caller': the task assistant and campaigns on the caller's own doors, apart from agents.* (the default).
  const own = await connect({ servers: cfg.servers, nkeySeed: { file: cfg.seedFile }, scope: 'caller' });
  try {
    const who = { user_id: cfg.chatUser, conversation_id: cfg.chatConversation };
    await own.taskAssistant.process({ ...who, message: 'add task door task' });
    await client.taskAssistant.process({ ...who, message: 'add task shared task' });
    const noOp = { kind: 'scripted', proposals: [{ action_type: 'no_op', reason: 'campaign_complete', details: 'nothing to do' }] };
    out.scoped = {
      own: (await own.taskAssistant.process({ ...who, message: 'show my tasks' })).response_text,
      shared: (await client.taskAssistant.process({ ...who, message: 'show my tasks' })).response_text,
      created: (await own.campaigns.create({ campaign_id: cfg.campaignId, name: 'door campaign', agent: noOp })).campaign_id,
      got: (await own.campaigns.get(cfg.campaignId)).name,
      sharedGet: await refusal(() => client.campaigns.get(cfg.campaignId)),
    };
  } finally {
    await own.close();
  }
} finally {
  await client.close();
}
console.log(JSON.stringify(out));
});
`;

/** An open agent run in the log as `requestedBy` would have started it (the fixture of a run the script did not start). */
async function recordRun(stack: TestStack, runId: string, caseId: string, requestedBy: string, inputs: ArtifactRef[]): Promise<void> {
  await new RunRepository(stack.log).append({ run_id: runId, root_run_id: runId, case_id: caseId }, [
    {
      type: 'RunCreated',
      data: {
        run_id: runId, run_kind: 'agent', agent_name: 'INTAKE_AGENT', root_run_id: runId, case_id: caseId, contract_version: 'v1', policy_versions: versions,
        input_artifacts: inputs, parameters: {}, request_hash_sha256: createHash('sha256').update(runId).digest('hex'), requested_by: requestedBy,
      },
    },
    { type: 'AuthzDecided', data: { decision: 'allow', action: 'agent.run.start', policy_versions: versions } },
    { type: 'RunStarted', data: {} },
  ], { expectedVersion: 0, commandId: `fixture-run:${runId}` });
}

interface ScriptOutput {
  form: { artifact_id: string; kind: string; case_id: string; sha256: string };
  followed: Array<{ seq: number; type: string }>;
  response: { outcome: string; run_id: string; output_artifacts: Array<{ artifact_id: string; kind: string }> };
  run: { status: string; run_id: string; output_artifacts: Array<{ artifact_id: string; kind: string }>; input_artifacts: unknown[] };
  outputs: Array<{ kind: string; sha256: string; json: Record<string, unknown> }>;
  inputRead: unknown;
  uploadRead: { sha256: string; size: number; same: boolean };
  cancelOwn: { run_id: string; outcome: string; status: string };
  runNotGranted: { outcome: string; run_id: string; error: { error_code: string; retryable: boolean } | null };
  refusals: Record<string, { refused: boolean; class: string; code: string; retryable: boolean; message: string }>;
  scoped: { own: string; shared: string; created: string; got: string; sharedGet: { refused: boolean; code: string } };
}

describe('Issue 26 @runledger/client, packed and installed outside the monorepo, as the caller', () => {
  let stack: TestStack;
  let scratch: ScratchProject;
  let out: ScriptOutput;
  const caseId = `case-${randomUUID().slice(0, 8)}`;
  const runId = randomUUID();
  const otherRunId = randomUUID();
  const crossRunId = randomUUID();
  const traceId = randomUUID().replace(/-/g, '');
  const chatUser = `u-${randomUUID()}`;
  const chatConversation = randomUUID();
  const campaignId = randomUUID();
  const uploadText = Array.from({ length: 12_000 }, (_v, i) => `Line ${i}: the employer's letter, scanned to text.`).join('\n');

  beforeAll(async () => {
    [stack, scratch] = await Promise.all([TestStack.start(), installClientInScratchProject()]);
    // A run another caller started (its RunCreated records that caller), in a case this caller may use.
    await recordRun(stack, otherRunId, caseId, 'other-caller', []);
    // Another case's artifact, and a run of this caller (as the log records it) naming it among its inputs.
    const otherCase = `case-${randomUUID().slice(0, 8)}`;
    const otherCaseArtifact = await putArtifact(stack, await uploader(stack, otherCase, versions), 'client_intake_form', { name: 'Someone Else' });
    await recordRun(stack, crossRunId, caseId, 'caller', [otherCaseArtifact]);
    out = await scratch.runScript<ScriptOutput>('caller.mjs', CALLER_SCRIPT, {
      chatUser, chatConversation, campaignId, crossRunId, otherCaseArtifactId: otherCaseArtifact.artifact_id, traceId, uploadText, servers: stack.nats.url, seedFile: stack.nats.creds.caller.file, caseId, runId, otherRunId, otherCaseId: `tenant-b-${randomUUID().slice(0, 8)}`, form: CASE_INPUTS.form,
    });
  });
  afterAll(async () => {
    await scratch?.remove();
    await stack?.stop();
  });

  it('Issue 26 Done when: the scratch project uploads an intake form, starts a contract-001 run with it, follows it live to its end and reads its outputs', async () => {
    expect(out.form).toMatchObject({ kind: 'client_intake_form', case_id: caseId });
    expect(out.response).toMatchObject({ outcome: 'success', run_id: runId });
    // Followed from its opening to its terminal event, in log order, and nothing after it.
    expect(out.followed[0].type).toBe('RunCreated');
    expect(out.followed[out.followed.length - 1].type).toBe('RunCompleted');
    expect(out.followed.map((e) => e.seq)).toEqual([...out.followed.map((e) => e.seq)].sort((a, b) => a - b));
    expect(out.run).toMatchObject({ status: 'completed', run_id: runId, input_artifacts: [out.form, expect.objectContaining({ kind: 'initial_upload', case_id: caseId })] });
    expect(out.outputs.map((o) => o.kind).sort()).toEqual(['intake_checklist', 'intake_summary']);
    for (const o of out.outputs) expect(o.json).toMatchObject({ case_id: caseId, source_artifact_id: out.form.artifact_id });
    expect(out.inputRead).toEqual(CASE_INPUTS.form);
    // A larger input (~600 KB) read back in 256 KiB chunks (3 of them), assembled and checked whole against its reference.
    expect(out.uploadRead).toEqual({ sha256: createHash('sha256').update(uploadText).digest('hex'), size: Buffer.byteLength(uploadText), same: true });
    // Its own run the caller may cancel; this one had ended, so nothing is recorded.
    expect(out.cancelOwn).toEqual({ run_id: runId, outcome: 'already_ended', status: 'completed' });
    // The log says who asked: the run's opening records the caller, and the follow saw every event the log holds.
    const loaded = await new RunRepository(stack.log).load(runId);
    expect(loaded.state.run?.requested_by).toBe('caller');
    expect(out.followed).toHaveLength(loaded.events.length);
  });

  it('Caller scope: with scope "caller" the client asks the task assistant and campaigns on the caller\'s own doors, apart from the agents.* default', async () => {
    expect(out.scoped).toEqual({
      own: 'Here are your tasks:\n1. door task', shared: 'Here are your tasks:\n1. shared task', created: campaignId, got: 'door campaign',
      sharedGet: expect.objectContaining({ refused: true, code: 'CAMPAIGN.NOT_FOUND' }),
    });
    // What the client made is the caller's door's: read back on rl.caller.caller.… as the caller.
    const caller = await stack.connectAs('caller');
    try {
      const m = await caller.request('rl.caller.caller.campaign.get', encodeJson({ campaign_id: campaignId }), { timeout: 30_000 });
      expect(decodeReply(m.data, m.headers)).toMatchObject({ ok: true, body: { campaign_id: campaignId, name: 'door campaign' } });
    } finally {
      await caller.close();
    }
  });

  it('Issue 26 one tarball, ESM and CommonJS with types: required from CommonJS and type-checked from a TypeScript module', async () => {
    expect((await scratch.node('check.cjs', 'const c = require("@runledger/client"); console.log(typeof c.connect, typeof c.NotFoundError, typeof c.RunledgerClient);', ['check.cjs'])).trim()).toBe('function function function');
    const typed = `import { connect, NotFoundError, type AgentRunRequest, type CallerRun, type RunEvent } from '@runledger/client';
const req: AgentRunRequest = { agent_name: 'INTAKE_AGENT', case_id: 'case-1', input_artifacts: [], parameters: {} };
export async function f(): Promise<CallerRun | null> {
  const c = await connect({ servers: 'nats://127.0.0.1:1', nkeySeed: { file: 'caller.nk' } });
  for await (const e of c.runs.follow('id')) { const seq: number = (e as RunEvent).seq; void seq; }
  try { return await c.runs.get((await c.runs.start(req)).run_id); } catch (e) { if (e instanceof NotFoundError && e.code === 'RUN.NOT_FOUND') return null; throw e; }
}
// @ts-expect-error runs.get takes a run id, not a request
export const wrong = () => connect({ servers: '' }).then((c) => c.runs.get(req));
`;
    await scratch.node('check.mts', typed, [TSC, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--skipLibCheck', '--typeRoots', NODE_TYPES_ROOT, '--types', 'node', 'check.mts']);
  });

  it('Issue 26 client tracing: the caller\'s active span is the parent of its requests, so the run and the ingest join the caller\'s trace', async () => {
    const opening = (await new RunRepository(stack.log).load(runId)).events[0];
    expect(opening.metadata.traceparent).toContain(traceId);
    const ingest = (await stack.log.replay<string[]>((acc, e) => (e.type === 'RunCreated' && (e.data as { run_kind?: string }).run_kind === 'artifact_ingest' ? [...acc, String(e.metadata.traceparent)] : acc), [], { filter: 'rl.log.run.>' })).state;
    expect(ingest.length).toBeGreaterThan(0);
    for (const tp of ingest) expect(tp).toContain(traceId);
  });

  it('Issue 26 caller ingress: the intake form is an artifact_ingest run in the log with its audit event, chained like every run', async () => {
    const ingests = (await stack.log.replay<Array<{ run_id: string; types: string[]; data: Record<string, unknown>[] }>>((acc, e) => {
      if (!e.subject.startsWith('rl.log.run.')) return acc;
      const run = acc.find((r) => r.run_id === e.metadata.stream_id) ?? (e.type === 'RunCreated' && (e.data as { run_kind?: string }).run_kind === 'artifact_ingest' ? acc[acc.push({ run_id: e.metadata.stream_id, types: [], data: [] }) - 1] : undefined);
      run?.types.push(e.type);
      run?.data.push(e.data as Record<string, unknown>);
      return acc;
    }, [], { filter: 'rl.log.run.>' })).state;
    const stored = ingests.find((r) => r.types.includes('ArtifactIngestAudited'))!;
    expect(stored.types).toEqual(['RunCreated', 'AuthzDecided', 'RunStarted', 'ArtifactIngestAudited', 'RunCompleted']);
    expect(stored.data[0]).toMatchObject({ run_kind: 'artifact_ingest', agent_name: 'INTAKE_AGENT', case_id: caseId, requested_by: 'caller' });
    expect(stored.data[3]).toMatchObject({ action: 'artifact.ingest', outcome: 'stored', requested_by: 'caller', caller_role: 'intake-desk', artifact_ref: out.form });
    // Grant refusals are recorded as denied ingest runs; content refusals (type, size) record nothing.
    const denied = ingests.filter((r) => r.types.includes('RunDenied'));
    expect(denied.map((r) => (r.data[1] as { code: string }).code).sort()).toEqual(['ARTIFACT.KIND_DENIED', 'CASE.NOT_GRANTED', 'CASE.NOT_GRANTED']);
    for (const r of denied) expect(r.types).toEqual(['RunCreated', 'AuthzDecided', 'RunDenied']);
    // The audit ledger takes them as it takes every run: §6 coverage finds each with its decision, audit event and outcome.
    const ids = new Set([stored.run_id, ...denied.map((r) => r.run_id)]);
    const report = await stack.waitFor(async () => {
      const r = await stack.request<CoverageReport>('rl.audit.coverage', {});
      return r.ok && r.body.runs_checked > 0 && !r.body.in_progress.some((id) => ids.has(id)) ? r.body : undefined;
    }, 20_000);
    expect(report.violations.filter((v) => ids.has(v.run_id))).toEqual([]);
  });

  it('Issue 26 caller-scoped reads: another caller\'s run is RUN.NOT_FOUND to get, follow, cancel, read artifacts of and read as a session; its own run reads only its case\'s artifacts', () => {
    for (const key of ['otherRunGet', 'otherRunFollow', 'otherRunCancel', 'otherRunArtifact', 'otherSessionGet']) {
      expect(out.refusals[key]).toMatchObject({ refused: true, class: 'NotFoundError', code: 'RUN.NOT_FOUND', retryable: false });
    }
    expect(out.refusals.artifactNotOfRun).toMatchObject({ refused: true, class: 'NotFoundError', code: 'ARTIFACT.NOT_FOUND' });
    // Its own run naming another case's artifact as an input does not make that artifact readable.
    expect(out.refusals.crossCaseInput).toMatchObject({ refused: true, class: 'AccessDeniedError', code: 'CASE.CROSS_CASE_DENIED' });
  });

  it('Issue 26 caller ingress refusals: a case its role does not allow (for an ingest or a run), a kind it may not supply, oversize, wrong type', async () => {
    expect(out.refusals.caseNotGranted).toMatchObject({ refused: true, class: 'AccessDeniedError', code: 'CASE.NOT_GRANTED', retryable: false });
    expect(out.refusals.kindDenied).toMatchObject({ refused: true, class: 'AccessDeniedError', code: 'ARTIFACT.KIND_DENIED' });
    expect(out.refusals.oversize).toMatchObject({ refused: true, class: 'InvalidRequestError', code: 'ARTIFACT.TOO_LARGE' });
    expect(out.refusals.oversize.message).toContain('1048576');
    expect(out.refusals.wrongType).toMatchObject({ refused: true, class: 'InvalidRequestError', code: 'ARTIFACT.TYPE_DENIED' });
    expect(out.refusals.notJson).toMatchObject({ refused: true, class: 'InvalidRequestError', code: 'ARTIFACT.TYPE_DENIED' });
    // Nor does it start runs there: its runs.start answers the §2.2 denial and nothing becomes a run.
    expect(out.runNotGranted).toMatchObject({ outcome: 'deny', error: { error_code: 'CASE.NOT_GRANTED', retryable: false } });
    expect((await new RunRepository(stack.log).load(out.runNotGranted.run_id)).state.status).toBe('none');
    // Refusal order: the grants first, so a case the caller may not use is named before anything about the content.
    expect(out.refusals.caseBeforeContent).toMatchObject({ refused: true, code: 'CASE.NOT_GRANTED' });
    for (const r of Object.values(out.refusals)) expect(r.message).not.toMatch(/\n\s+at /);
  });

  describe('Issue 26 caller door on the bus', () => {
    let nc: NatsConnection;
    beforeAll(async () => {
      nc = await stack.connectAs('caller');
    });
    afterAll(async () => nc?.close());

    it('Issue 26 nobody asks as another caller: the caller may not publish on rl.caller.<another>.…', async () => {
      await expect(nc.request('rl.caller.other-caller.runs.get', new TextEncoder().encode(JSON.stringify({ run_id: otherRunId })), { timeout: 5_000 })).rejects.toThrow(/permission/i);
    });

    it('Issue 26 a caller gets no subscription on the live feed of every run', async () => {
      const sub = nc.subscribe(`rl.live.run.decision.${runId}`);
      await nc.flush();
      await expect((async () => { for await (const _m of sub) return 'message'; return 'closed'; })()).rejects.toThrow(/permission/i);
    });

    it('Issue 26 a caller request whose reply would go to another identity\'s inbox is refused, never answered with the caller\'s data', async () => {
      const operator = await stack.connectAs('operator');
      try {
        const inbox = `_INBOX_operator.${randomUUID()}`;
        const sub = operator.subscribe(inbox, { max: 1 });
        await operator.flush();
        nc.publish('rl.caller.caller.runs.get', new TextEncoder().encode(JSON.stringify({ run_id: runId })), { reply: inbox });
        for await (const m of sub) {
          expect(m.headers?.get('Rl-Status')).toBe('error');
          expect(JSON.parse(new TextDecoder().decode(m.data))).toMatchObject({ code: 'REQUEST.INVALID' });
        }
      } finally {
        await operator.close();
      }
    });
  });
  describe('Issue 26 client retries: retryable answers are asked again with backoff under one request id, others never', () => {
    // A bare nats-server where this test answers as Runledger would, so the answers are exactly the ones under test.
    let nats: NatsServerHandle;
    let responder: NatsConnection;
    const seen: Array<{ requestId: string | undefined }> = [];
    beforeAll(async () => {
      nats = await startNatsServer({ secured: false });
      responder = await connect({ servers: nats.url });
      const answers: Record<string, Array<{ status: 'ok' | 'error'; body: unknown }>> = {
        'rl.caller.caller.runs.get': [
          { status: 'error', body: { code: 'DEPENDENCY.DOWN', message: 'A dependency is not available; retry later.', retryable: true } },
          { status: 'error', body: { code: 'RUN.CONFLICT', message: 'The run changed concurrently; retry.', retryable: true } },
          { status: 'ok', body: { run_id: runId, status: 'completed' } },
        ],
        'rl.caller.caller.runs.cancel': [{ status: 'error', body: { code: 'RUN.NOT_FOUND', message: 'No run with that id was started by this caller.', retryable: false } }],
      };
      for (const [subject, replies] of Object.entries(answers)) {
        responder.subscribe(subject, {
          callback: (_e, m) => {
            seen.push({ requestId: m.headers?.get('Rl-Request-Id') });
            const next = replies.shift() ?? { status: 'error', body: { code: 'INTERNAL', message: 'unexpected', retryable: false } };
            const h = natsHeaders();
            h.set('Rl-Status', next.status);
            m.respond(new TextEncoder().encode(JSON.stringify(next.body)), { headers: h });
          },
        });
      }
      await responder.flush();
    });
    afterAll(async () => {
      await responder?.close();
      await nats?.stop();
    });

    it('Issue 26 retry: two retryable errors, then the answer; the non-retryable refusal is asked once and thrown as its class', async () => {
      const result = await scratch.runScript<{ got: unknown; refusal: { class: string; code: string } }>('retry.mjs', `
import { readFileSync } from 'node:fs';
import { connect } from '@runledger/client';
const cfg = JSON.parse(readFileSync(process.env.RL_CONFIG, 'utf8'));
const client = await connect({ servers: cfg.servers, retry: { initialDelayMs: 20, maxDelayMs: 100 } });
const got = await client.runs.get(cfg.runId);
let refusal;
try { await client.runs.cancel(cfg.runId); } catch (e) { refusal = { class: e.constructor.name, code: e.code }; }
await client.close();
console.log(JSON.stringify({ got, refusal }));
`, { servers: nats.url, runId });
      expect(result.got).toEqual({ run_id: runId, status: 'completed' });
      expect(result.refusal).toEqual({ class: 'NotFoundError', code: 'RUN.NOT_FOUND' });
      // Three attempts of the get under one request id, one of the cancel under its own.
      expect(seen).toHaveLength(4);
      expect(new Set(seen.slice(0, 3).map((s) => s.requestId)).size).toBe(1);
      expect(seen[3].requestId).not.toBe(seen[0].requestId);
      expect(seen.every((s) => s.requestId && /^[0-9a-f-]{36}$/.test(s.requestId))).toBe(true);
    });
  });
});
