/**
 * Bounded input on a caller's doors (contract 001 §2.2, issue 26), as the `caller` identity an integrator holds: a
 * request or an intake form beyond the bounds is refused naming the problem and starts nothing; a form stored before a
 * check existed fails its run at once; well-formed input a strict reader might reject (a byte order mark) is taken.
 */
import { createHash, randomUUID } from 'node:crypto';
import { Objm } from '@nats-io/obj';
import type { NatsConnection } from '@nats-io/transport-node';
import { callerDoor, OWN_START, runIdOf } from './support/caller-door';
import { policyVersionsIn, putArtifact, recordedCaller, SHIPPED_POLICY_DIR } from './support/governed-runs';
import { TestStack } from './support/stack';

jest.setTimeout(300_000);

const enc = new TextEncoder();

describe('Issue 26 bounded input on a caller\'s doors: refused in words, nothing started', () => {
  let stack: TestStack;
  let caller: NatsConnection;
  const tag = randomUUID().slice(0, 8);
  const { ask, ingestBytes, recorded } = callerDoor(() => ({ stack, caller }));

  beforeAll(async () => {
    stack = await TestStack.shared();
    caller = await stack.connectAs('caller');
  });
  afterAll(async () => {
    await caller?.close();
    await stack?.stop();
  });

  it('Issue 26 §2.2 a refusal of bounded-input rules names the problem, under a run_id of its own bytes (stable on retry, never shared, no run)', async () => {
    let nested = '1';
    for (let i = 0; i < 40; i++) nested = `[${nested}]`;
    const bodies = {
      deep: enc.encode(`{"agent_name":"INTAKE_AGENT","case_id":"case-${tag}","input_artifacts":[],"parameters":{"x":${nested}}}`),
      proto: enc.encode(`{"agent_name":"INTAKE_AGENT","case_id":"case-${tag}","input_artifacts":[],"parameters":{"__proto__":{"a":1}}}`),
    };
    const deep = await ask(OWN_START, bodies.deep);
    const proto = await ask(OWN_START, bodies.proto);
    expect(deep).toMatchObject({ ok: true, body: { outcome: 'failure', error: { error_code: 'INVALID_INPUT', message: expect.stringContaining('nested deeper than 32 levels') } } });
    expect(proto).toMatchObject({ ok: true, body: { outcome: 'failure', error: { error_code: 'INVALID_INPUT', message: expect.stringContaining('property parameters.__proto__ should not exist') } } });
    const ids = [deep, proto].map(runIdOf);
    expect(ids[0]).not.toBe(ids[1]);
    expect(runIdOf(await ask(OWN_START, bodies.deep))).toBe(ids[0]);
    for (const id of ids) expect(await recorded(id!)).toEqual([]);
  });

  it('Probe finding (deep intake form): an ingest nested deeper than the request bound is ARTIFACT.TYPE_DENIED naming it (nothing stored); a form at the bound is taken and read; a run given one stored deeper before that check fails INVALID_INPUT at once', async () => {
    const caseId = `case-deep-${tag}`;
    const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}{"name":"Dana"}${'}'.repeat(levels - 1)}`;
    const ingest = (json: string) => ingestBytes(caseId, 'INTAKE_AGENT', 'client_intake_form', json);
    const deepForm = `{"name":"Dana","contact":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    expect(await ingest(deepForm)).toEqual({
      ok: false, error: { code: 'ARTIFACT.TYPE_DENIED', message: 'A client_intake_form may be nested at most 32 levels (objects and arrays); the content is nested deeper.', retryable: false },
    });
    expect(await ingest(nested(33))).toMatchObject({ ok: false, error: { code: 'ARTIFACT.TYPE_DENIED' } });
    const atBound = await ingest(nested(32));
    expect(atBound).toMatchObject({ ok: true, body: { kind: 'client_intake_form', case_id: caseId } });
    const taken = await ask(OWN_START, { agent_name: 'INTAKE_AGENT', case_id: caseId, run_id: randomUUID(), input_artifacts: [atBound.ok && atBound.body], parameters: {} }, 120_000);
    expect(taken).toMatchObject({ ok: true, body: { outcome: 'success', error: null } });
    const objects = await (await new Objm(stack.nc).open('rl_artifacts')).list();
    const sizes = objects.map((o) => JSON.parse(o.metadata?.artifact_ref ?? '{}') as { case_id?: string; kind?: string; size_bytes?: number })
      .filter((ref) => ref.case_id === caseId && ref.kind === 'client_intake_form').map((ref) => ref.size_bytes);
    expect(sizes).toEqual([Buffer.byteLength(nested(32))]);

    // The same form stored through the agents' own door (as an ingest before this check could): the run that reads it
    // ends failed at once, answered to the caller with a §2.2 failure, instead of a stack overflow redelivered for minutes.
    const writer = await recordedCaller(stack, 'INTAKE_AGENT', 'WRITE_INTAKE_ARTIFACTS', caseId, policyVersionsIn(SHIPPED_POLICY_DIR));
    const stored = await putArtifact(stack, writer, 'client_intake_form', deepForm);
    const runId = randomUUID();
    const started = await ask(OWN_START, { agent_name: 'INTAKE_AGENT', case_id: caseId, run_id: runId, input_artifacts: [stored], parameters: {} }, 120_000);
    expect(started).toMatchObject({
      ok: true, body: { outcome: 'failure', run_id: runId, error: { error_code: 'INVALID_INPUT', message: `Artifact ${stored.artifact_id} (client_intake_form) is nested deeper than 32 levels.`, retryable: false } },
    });
    expect((await recorded(runId)).filter((t) => t === 'RunFailed')).toHaveLength(1);
  });

  it('Input bounds (a lone UTF-16 surrogate is not well-formed text): an intake form holding one is ARTIFACT.TYPE_DENIED at ingest; one stored before that check fails its run INVALID_INPUT at once, not INTERNAL retried', async () => {
    const caseId = `case-lone-${tag}`;
    const form = '{"name":"\\ud800"}';
    const ingested = await ingestBytes(caseId, 'INTAKE_AGENT', 'client_intake_form', form);
    expect(ingested).toEqual({
      ok: false, error: { code: 'ARTIFACT.TYPE_DENIED', message: 'A client_intake_form must hold well-formed text: property name is not well-formed text (a lone UTF-16 surrogate).', retryable: false },
    });
    const writer = await recordedCaller(stack, 'INTAKE_AGENT', 'WRITE_INTAKE_ARTIFACTS', caseId, policyVersionsIn(SHIPPED_POLICY_DIR));
    const stored = await putArtifact(stack, writer, 'client_intake_form', form);
    const runId = randomUUID();
    const started = await ask(OWN_START, { agent_name: 'INTAKE_AGENT', case_id: caseId, run_id: runId, input_artifacts: [stored], parameters: {} }, 120_000);
    expect(started).toMatchObject({
      ok: true, body: { outcome: 'failure', run_id: runId, error: { error_code: 'INVALID_INPUT', message: `Artifact ${stored.artifact_id} (client_intake_form) is not usable: property name is not well-formed text (a lone UTF-16 surrogate).`, retryable: false } },
    });
  });

  it('Intake form with a UTF-8 byte order mark: ingest takes it as the JSON it is, stored byte for byte (its sha256 over the mark), and the run that reads it succeeds (it failed INVALID_INPUT, not JSON)', async () => {
    const caseId = `case-bom-${tag}`;
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"Dana","contact":{"email":"dana@example.com"}}')]);
    const ingested = await ingestBytes(caseId, 'INTAKE_AGENT', 'client_intake_form', bytes);
    expect(ingested).toMatchObject({ ok: true, body: { kind: 'client_intake_form', case_id: caseId, size_bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') } });
    const runId = randomUUID();
    const started = await ask(OWN_START, { agent_name: 'INTAKE_AGENT', case_id: caseId, run_id: runId, input_artifacts: [ingested.ok && ingested.body], parameters: {} }, 120_000);
    expect(started).toMatchObject({ ok: true, body: { outcome: 'success', run_id: runId, error: null } });
  });
});
