/**
 * Helpers for the governed agent runs e2e tests (contract 001): upload case inputs as artifacts, start runs on the
 * harness's own caller door (START), and read back a whole run tree from the log.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentRunResponse, ArtifactGetResult, ArtifactRef, GovernanceScope } from '@runledger/contracts';
import type { WireError } from '@runledger/kernel';
import { decodeReply, encodeJson } from '@runledger/messaging';
import { TEST_ADMIN } from '@runledger/testing';
import { callerSubject } from '../../libs/contracts/src/subjects';
import type { StoredEvent } from '@runledger/event-log';
import { RunRepository } from '@runledger/runs';
import { parse } from 'yaml';
import type { TestStack } from './stack';

/** The harness's own door for runs: its `test-admin` is a caller of every case (TestStack.harnessCallerGrants). */
export const START = callerSubject(TEST_ADMIN, 'runs.start');
export const SHIPPED_POLICY_DIR = join(__dirname, '..', '..', 'policy', 'contract-v1');

export function policyVersionsIn(dir: string): { lanes: string; roles: string } {
  const version = (file: string) => (parse(readFileSync(join(dir, file), 'utf8')) as { version: string }).version;
  return { lanes: version('lanes.yaml'), roles: version('roles.yaml') };
}

/**
 * A calling agent run recorded in the log (RunCreated, AuthzDecided allow, RunStarted; left open), and its
 * governance scope: choke points that check a caller's claims against the run it names find this one. With
 * `parent`, the run is that run's child (same root); with `user_id`, the run is that user's (a user-isolated lane's caller).
 */
export async function recordedCaller(stack: TestStack, agent_name: string, lane: string, case_id: string | undefined, policy_versions: { lanes: string; roles: string }, parent?: GovernanceScope, user_id?: string): Promise<GovernanceScope> {
  const run_id = randomUUID();
  const root_run_id = parent?.root_run_id ?? run_id;
  const tree = { root_run_id, ...(parent ? { parent_run_id: parent.parent_run_id } : {}), ...(case_id ? { case_id } : {}), ...(user_id ? { user_id } : {}) };
  await new RunRepository(stack.log).append(
    { run_id, ...tree },
    [
      {
        type: 'RunCreated',
        // A root as the harness's caller (test-admin) starts it on its door; a child as decision starts it in its tree.
        data: { run_id, run_kind: 'agent', agent_name, ...tree, contract_version: 'v1', policy_versions, input_artifacts: [], parameters: {}, request_hash_sha256: createHash('sha256').update(run_id).digest('hex'), ...(parent ? {} : { requested_by: TEST_ADMIN }) },
      },
      { type: 'AuthzDecided', data: { decision: 'allow', action: 'agent.run.start', policy_versions } },
      { type: 'RunStarted', data: {} },
    ],
    { expectedVersion: 0, commandId: `test-caller:${run_id}` },
  );
  return { parent_run_id: run_id, root_run_id, agent_name, lane, ...(case_id ? { case_id } : {}), ...(user_id ? { user_id } : {}), policy_versions };
}

/** A case worker uploading the case's inputs: the intake lane, a fresh parent run recorded in the log, the given pinned versions. */
export function uploader(stack: TestStack, case_id: string, policy_versions: { lanes: string; roles: string }): Promise<GovernanceScope> {
  return recordedCaller(stack, 'INTAKE_AGENT', 'WRITE_INTAKE_ARTIFACTS', case_id, policy_versions);
}

export async function putArtifact(stack: TestStack, governance: GovernanceScope, kind: string, content: unknown, media_type = 'application/json'): Promise<ArtifactRef> {
  const text = typeof content === 'string' ? content : JSON.stringify(content);
  const r = await stack.request<ArtifactRef>('rl.artifacts.put', { content_base64: Buffer.from(text).toString('base64'), media_type, kind, name: `${kind}.input`, governance });
  if (!r.ok) throw new Error(`artifact put failed: ${JSON.stringify(r.body)}`);
  return r.body;
}

/**
 * A §4.5 promotion ticket as an ATTORNEY_ADMIN approves it (README "Governed runs (contract 001)"), covering one
 * target and the given source case. Tickets are single use: make one per promotion.
 */
export function approvedTicket(source_case_id: string | undefined, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ticket_id: `ticket-${randomUUID()}`, approved: true, approved_by: 'Avery Counsel', approver_role: 'ATTORNEY_ADMIN', approved_at: new Date().toISOString(),
    scope: { targets: ['shared_playbooks'], ...(source_case_id ? { source_case_id } : {}) },
    ...overrides,
  };
}

/** The shipped approver identity (policy/callers.yaml: role attorney-desk, acts_as ATTORNEY_ADMIN). */
export const APPROVER = 'approver';

/**
 * A caller's ingest on its own door (rl.caller.<identity>.artifacts.ingest), over a connection as that identity: the
 * door answers only its caller's own inbox, and NATS lets each caller publish only on its own name, as shipped.
 */
export async function ingestAs(stack: TestStack, identity: string, req: { case_id: string; agent_name: string; kind: string; content: unknown; media_type?: string }): Promise<{ ok: true; body: ArtifactRef } | { ok: false; error: WireError }> {
  const text = typeof req.content === 'string' ? req.content : JSON.stringify(req.content);
  const body = { case_id: req.case_id, agent_name: req.agent_name, kind: req.kind, media_type: req.media_type ?? 'application/json', name: `${req.kind}.input`, content_base64: Buffer.from(text).toString('base64') };
  const nc = await stack.connectAs(identity);
  try {
    const m = await nc.request(callerSubject(identity, 'artifacts.ingest'), encodeJson(body), { timeout: 30_000 });
    return decodeReply(m.data, m.headers) as { ok: true; body: ArtifactRef } | { ok: false; error: WireError };
  } finally {
    await nc.close();
  }
}

/**
 * Puts a promotion ticket in as the approver does (README "Promotion tickets": only a ticket an approver ingested
 * counts), into case `case_id` for GOVERNANCE_AGENT; its artifact id is the request's promotion_ticket_id.
 */
export async function putTicket(stack: TestStack, case_id: string, ticket: Record<string, unknown>): Promise<ArtifactRef> {
  const r = await ingestAs(stack, APPROVER, { case_id, agent_name: 'GOVERNANCE_AGENT', kind: 'promotion_ticket', content: ticket });
  if (!r.ok) throw new Error(`ticket ingest failed: ${JSON.stringify(r.error)}`);
  return r.body;
}

export async function readArtifactJson<T>(stack: TestStack, ref: ArtifactRef, governance: GovernanceScope): Promise<T> {
  const r = await stack.request<ArtifactGetResult>('rl.artifacts.get', { artifact_id: ref.artifact_id, governance });
  if (!r.ok) throw new Error(`artifact get failed: ${JSON.stringify(r.body)}`);
  return JSON.parse(Buffer.from(r.body.content_base64, 'base64').toString('utf8')) as T;
}

export async function startRun(stack: TestStack, request: Record<string, unknown>, timeoutMs = 90_000): Promise<AgentRunResponse> {
  const r = await stack.request<AgentRunResponse>(START, request, timeoutMs);
  if (!r.ok) throw new Error(`${START} answered a wire error: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** A case's inputs: the intake form, a recorded interview (labelled turns) and a plain-text document. */
export const CASE_INPUTS = {
  form: { name: 'Dana Reyes', contact: { email: 'dana@example.com' }, matter_description: 'My employer fired me after I asked about unpaid overtime.', incident_date: '2026-03-02', opposing_party: 'Acme Widgets Inc' },
  recording: [
    'Interviewer: In your own words, what happened?',
    'Client: I worked at Acme Widgets Inc for four years. In March my manager Tom Baker fired me two days after I complained about unpaid overtime.',
    'Interviewer: What did you lose?',
    'Client: I lost my salary and they still owe me three weeks of overtime pay under my contract.',
    'Client: I have the emails from Tom Baker and a copy of the employment agreement.',
  ].join('\n'),
  document: 'Employment agreement between Dana Reyes and Acme Widgets Inc. Overtime is paid at one and a half times the hourly rate. The employer may not terminate the employee in retaliation for a wage complaint.',
};

export async function uploadCase(stack: TestStack, case_id: string, versions: { lanes: string; roles: string }): Promise<{ form: ArtifactRef; recording: ArtifactRef; document: ArtifactRef }> {
  const g = await uploader(stack, case_id, versions);
  return {
    form: await putArtifact(stack, g, 'client_intake_form', CASE_INPUTS.form),
    recording: await putArtifact(stack, g, 'interview_recording', CASE_INPUTS.recording, 'text/plain; charset=utf-8'),
    document: await putArtifact(stack, g, 'source_document', CASE_INPUTS.document, 'text/plain; charset=utf-8'),
  };
}

export interface RunView {
  run_id: string;
  events: StoredEvent[];
  created: { run_kind: string; agent_name: string; case_id?: string; parent_run_id?: string; root_run_id: string; correlation_id?: string; lane?: string; contract_version: string; policy_versions: { lanes: string; roles: string }; parameters: Record<string, unknown> };
  types: string[];
  authz?: { decision: string; code?: string; lane?: string; action?: string; policy_versions: { lanes: string; roles: string } };
}

/** Every run of one tree (all run kinds), from the log: the runs whose events carry this root run id. */
export async function runTree(stack: TestStack, rootRunId: string): Promise<RunView[]> {
  const { state } = await stack.log.replay<Map<string, StoredEvent[]>>((acc, e) => {
    if (e.subject.startsWith('rl.log.run.') && e.metadata.root_run_id === rootRunId) acc.set(e.metadata.stream_id, [...(acc.get(e.metadata.stream_id) ?? []), e]);
    return acc;
  }, new Map(), { filter: 'rl.log.run.>' });
  return [...state].map(([run_id, events]) => ({
    run_id, events, types: events.map((e) => e.type),
    created: events.find((e) => e.type === 'RunCreated')!.data as RunView['created'],
    authz: events.find((e) => e.type === 'AuthzDecided')?.data as RunView['authz'],
  }));
}

export async function runView(stack: TestStack, runId: string): Promise<RunView> {
  const events = await stack.runEvents(runId);
  return {
    run_id: runId, events, types: events.map((e) => e.type),
    created: events.find((e) => e.type === 'RunCreated')?.data as RunView['created'],
    authz: events.find((e) => e.type === 'AuthzDecided')?.data as RunView['authz'],
  };
}

export const childrenOf = (tree: RunView[], parentRunId: string, kind?: string) =>
  tree.filter((r) => r.created.parent_run_id === parentRunId && (!kind || r.created.run_kind === kind));

export const eventsOf = <T>(run: RunView, type: string): T[] => run.events.filter((e) => e.type === type).map((e) => e.data as T);

/** Every event anywhere in the log (any subject) whose data or metadata contains one of `needles`, as `subject type`. */
export async function logEventsContaining(stack: TestStack, needles: readonly string[]): Promise<string[]> {
  const wanted = needles.map((n) => n.toLowerCase());
  const { state } = await stack.log.replay<string[]>((hits, e) => {
    const text = JSON.stringify({ data: e.data, metadata: e.metadata }).toLowerCase();
    if (wanted.some((n) => text.includes(n))) hits.push(`${e.subject} ${e.type}`);
    return hits;
  }, []);
  return state;
}
