import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  connect as natsConnect, credsAuthenticator, nkeyAuthenticator, tokenAuthenticator, usernamePasswordAuthenticator,
  type Authenticator, type ConnectionOptions, type NatsConnection, type TlsOptions,
} from '@nats-io/transport-node';
import type {
  AgentDecisionReply, AgentRunRequest, AgentRunResponse, ArtifactGetResult, ArtifactRef, CallerRun, CallerRunEvents,
  CampaignCommandRequest, CampaignCreateRequest, CampaignLeadsImportRequest, CampaignView, DecisionContext, RunCancelResult,
  SessionReply, SessionStartRequest,
} from './contracts.js';
import { IntegrityError } from './errors.js';
import { DEFAULT_RETRY, Requester, type RequestOptions, type RetryPolicy } from './transport.js';

/** How to reach Runledger and who to be. Exactly one way to authenticate: creds, nkeySeed, user/password or token. */
export interface ConnectOptions {
  servers: string | string[];
  /** A NATS `.creds` file's content (JWT and seed), or `{ file }` to read one. */
  creds?: string | { file: string };
  /** An nkey seed (`SU…`), or `{ file }` to read one (Runledger's local stack writes `.data/credentials/caller.nk`). */
  nkeySeed?: string | { file: string };
  user?: string;
  password?: string;
  token?: string;
  tls?: TlsOptions;
  /**
   * The caller identity you connect as (a `clients` entry of Runledger's permissions table; default `caller`). Your
   * own subjects are `rl.caller.<identity>.…`, and NATS lets you subscribe to replies only on `_INBOX_<identity>`.
   */
  identity?: string;
  /** Default `_INBOX_<identity>`, the only inbox prefix Runledger's permissions let the identity subscribe to. */
  inboxPrefix?: string;
  /**
   * Where `taskAssistant` and `campaigns` ask. `shared` (the default, as before): agents.task-assistant.process and
   * agents.campaign.*, one trust domain keyed by the ids a request names. `caller`: your own doors,
   * rl.caller.<identity>.task-assistant.process | campaign.*, where your users, conversations, tasks and campaigns are
   * yours alone (another caller naming the same ids reaches none of them).
   */
  scope?: 'shared' | 'caller';
  /** One reply's timeout (default 30 000 ms); runs.start and sessions.start default to runTimeoutMs. */
  timeoutMs?: number;
  /** How long to wait for a run's reply (default 120 000 ms): those subjects answer once the run has ended. */
  runTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** The connection's name as NATS monitoring shows it. */
  name?: string;
}

/** An artifact to put as a run's input: its bytes (or text, or a JSON value) and what it is. */
export interface ArtifactInput {
  caseId: string;
  /** The agent it is an input of (INTAKE_AGENT …): the caller's role must let it supply `kind` to that agent. */
  agentName: string;
  kind: string;
  /** Default: application/json for a JSON value, text/plain for a string, application/octet-stream for bytes. */
  mediaType?: string;
  name?: string;
  content: Uint8Array | string | Record<string, unknown>;
}

/** An artifact's reference and its bytes, verified against the reference's sha256 and size. */
export interface ArtifactContent {
  ref: ArtifactRef;
  bytes: Uint8Array;
  text(): string;
  json<T = unknown>(): T;
}

/** One event of a run, as its caller follows it (`seq`: the log position of the commit holding it). */
export type RunEvent = CallerRunEvents['events'][number];

export interface FollowOptions {
  /** Start after this log position (default 0: from the run's first event). */
  after?: number;
  /** How long one poll waits for the next event (default 15 000 ms, at most 20 000). */
  waitMs?: number;
  /** Stop following (the iterator ends) when this signal aborts. */
  signal?: AbortSignal;
}

const CLIENT_NAME = '@runledger/client';
/** Bytes per chunk of artifacts.get: base64 of it stays under NATS's default 1 MB max_payload. */
const DEFAULT_CHUNK_BYTES = 512 * 1024;

/** Connects to Runledger as a caller. Close the client when done. */
export async function connect(opts: ConnectOptions): Promise<RunledgerClient> {
  const identity = opts.identity ?? 'caller';
  const nc = await natsConnect({
    servers: opts.servers,
    name: opts.name ?? CLIENT_NAME,
    inboxPrefix: opts.inboxPrefix ?? `_INBOX_${identity}`,
    ...(opts.tls ? { tls: opts.tls } : {}),
    ...authOptions(opts),
  });
  return new RunledgerClient(nc, identity, opts);
}

function authOptions(opts: ConnectOptions): Partial<ConnectionOptions> {
  const read = (v: string | { file: string }) => (typeof v === 'string' ? v : readFileSync(v.file, 'utf8')).trim();
  const given = [opts.creds !== undefined, opts.nkeySeed !== undefined, opts.user !== undefined, opts.token !== undefined].filter(Boolean).length;
  if (given > 1) throw new TypeError('connect: give one of creds, nkeySeed, user/password or token.');
  let authenticator: Authenticator | undefined;
  if (opts.creds !== undefined) authenticator = credsAuthenticator(new TextEncoder().encode(read(opts.creds)));
  else if (opts.nkeySeed !== undefined) authenticator = nkeyAuthenticator(new TextEncoder().encode(read(opts.nkeySeed)));
  else if (opts.user !== undefined) authenticator = usernamePasswordAuthenticator(opts.user, opts.password);
  else if (opts.token !== undefined) authenticator = tokenAuthenticator(opts.token);
  return authenticator ? { authenticator } : {};
}

/**
 * Runledger's public subjects, typed. Every method is one request (or, for `runs.follow`, a series of them) with the
 * stable-code errors of ./errors and retries of retryable failures; every public request is idempotent by its ids.
 */
export class RunledgerClient {
  private readonly rq: Requester;
  private readonly runTimeoutMs: number;
  private readonly scope: 'shared' | 'caller';

  constructor(readonly nc: NatsConnection, readonly identity: string, opts: Pick<ConnectOptions, 'timeoutMs' | 'runTimeoutMs' | 'retry' | 'scope'> = {}) {
    this.rq = new Requester(nc, { timeoutMs: opts.timeoutMs ?? 30_000, retry: { ...DEFAULT_RETRY, ...opts.retry } });
    this.runTimeoutMs = opts.runTimeoutMs ?? 120_000;
    this.scope = opts.scope ?? 'shared';
  }

  /** The caller's own subject for `op` (rl.caller.<identity>.<op>). */
  private own(op: string): string {
    return `rl.caller.${this.identity}.${op}`;
  }

  /** The subject of `op` in the client's scope: agents.<op>, or the caller's own door for it. */
  private scoped(op: string): string {
    return this.scope === 'caller' ? this.own(op) : `agents.${op}`;
  }

  /** Contract 000: one message to the task assistant. A request_id is added when missing, so a retry is the same request. */
  readonly taskAssistant = {
    process: (req: DecisionContext, opts?: RequestOptions): Promise<AgentDecisionReply> => {
      const requestId = req.request_id ?? opts?.requestId ?? randomUUID();
      return this.rq.request(this.scoped('task-assistant.process'), { ...req, request_id: requestId }, { ...opts, requestId });
    },
  };

  /** Contract 001 governed runs started by this caller: start one, read it, follow it live, cancel it. */
  readonly runs = {
    /**
     * rl.caller.<identity>.runs.start: answers once the run has ended (or with outcome `failure` and status `running` past Runledger's
     * reply timeout: follow it then). The run id derives from the request and the caller, so a retry is the same run.
     */
    start: (req: AgentRunRequest, opts?: RequestOptions): Promise<AgentRunResponse> =>
      this.rq.request(this.own('runs.start'), req, { timeoutMs: this.runTimeoutMs, ...opts }),
    get: (runId: string, opts?: RequestOptions): Promise<CallerRun> => this.rq.request(this.own('runs.get'), { run_id: runId }, opts),
    /** The run's events from the start (or `after`), live, ending after its terminal event. */
    follow: (runId: string, opts: FollowOptions = {}): AsyncIterable<RunEvent> => this.follow(runId, opts),
    cancel: (runId: string, reason?: string, opts?: RequestOptions): Promise<RunCancelResult> =>
      this.rq.request(this.own('runs.cancel'), { run_id: runId, ...(reason ? { reason } : {}) }, opts),
  };

  /** Contract 002 agent sessions started by this caller. */
  readonly sessions = {
    start: (req: SessionStartRequest, opts?: RequestOptions): Promise<SessionReply> => this.rq.request(this.own('sessions.start'), req, { timeoutMs: this.runTimeoutMs, ...opts }),
    get: (runId: string, opts?: RequestOptions): Promise<SessionReply> => this.rq.request(this.own('sessions.get'), { run_id: runId }, opts),
  };

  /** Contract 003 campaigns, in the client's `scope` (approvals and answers are the operator's, not a caller's). */
  readonly campaigns = {
    create: (req: CampaignCreateRequest, opts?: RequestOptions): Promise<CampaignView> => this.rq.request(this.scoped('campaign.create'), req, opts),
    importLeads: (req: CampaignLeadsImportRequest, opts?: RequestOptions): Promise<CampaignView> => this.rq.request(this.scoped('campaign.leads.import'), req, opts),
    start: (req: CampaignCommandRequest, opts?: RequestOptions): Promise<CampaignView> => this.rq.request(this.scoped('campaign.start'), req, opts),
    pause: (req: CampaignCommandRequest, opts?: RequestOptions): Promise<CampaignView> => this.rq.request(this.scoped('campaign.pause'), req, opts),
    get: (campaignId: string, opts?: RequestOptions): Promise<CampaignView> => this.rq.request(this.scoped('campaign.get'), { campaign_id: campaignId }, opts),
    // A request_id is added when missing: a retry (a lost reply, RUN.TIMEOUT) joins the cycles it queued, never queues more.
    cycle: (req: CampaignCommandRequest, opts?: RequestOptions): Promise<CampaignView> => this.cycles(this.scoped('campaign.cycle'), req, opts),
    run: (req: CampaignCommandRequest, opts?: RequestOptions): Promise<CampaignView> => this.cycles(this.scoped('campaign.run'), req, opts),
  };
  private cycles(subject: string, req: CampaignCommandRequest, opts?: RequestOptions): Promise<CampaignView> {
    const requestId = req.request_id ?? opts?.requestId ?? randomUUID();
    return this.rq.request(subject, { ...req, request_id: requestId }, { timeoutMs: this.runTimeoutMs, ...opts, requestId });
  }


  /** A caller's artifacts: inputs it puts for its runs, and the inputs and outputs of the runs it started. */
  readonly artifacts = {
    /**
     * Puts an input artifact into a case, as the caller's role allows. The sha256 is computed here and checked by
     * Runledger; the reference is content-addressed, so a retry gives the same one.
     */
    put: (input: ArtifactInput, opts?: RequestOptions): Promise<ArtifactRef> => {
      const { bytes, mediaType } = encodeContent(input);
      return this.rq.request(this.own('artifacts.ingest'), {
        case_id: input.caseId, agent_name: input.agentName, kind: input.kind, media_type: mediaType, ...(input.name ? { name: input.name } : {}),
        content_base64: Buffer.from(bytes).toString('base64'), sha256: sha256Hex(bytes),
      }, opts);
    },
    /**
     * An input or output artifact of a run this caller started, read in chunks of `chunkBytes` (default 512 KiB, so
     * every reply fits NATS's default 1 MB max_payload) and verified here, whole, against its sha256 and size.
     */
    get: async (runId: string, artifactId: string, opts: RequestOptions & { chunkBytes?: number } = {}): Promise<ArtifactContent> => {
      const { chunkBytes = DEFAULT_CHUNK_BYTES, ...requestOpts } = opts;
      const chunk = (offset: number) => this.rq.request<ArtifactGetResult>(this.own('artifacts.get'), { run_id: runId, artifact_id: artifactId, offset, length: chunkBytes }, requestOpts);
      const first = await chunk(0);
      const ref = first.artifact_ref;
      const parts = [Buffer.from(first.content_base64, 'base64')];
      for (let offset = parts[0].length; offset < ref.size_bytes && parts[parts.length - 1].length > 0; offset += parts[parts.length - 1].length) {
        const next = await chunk(offset);
        if (next.artifact_ref.sha256 !== ref.sha256) throw new IntegrityError({ code: 'ARTIFACT.HASH_MISMATCH', message: `${artifactId} changed between its chunks.`, retryable: false });
        parts.push(Buffer.from(next.content_base64, 'base64'));
      }
      const bytes = new Uint8Array(Buffer.concat(parts));
      if (bytes.length !== ref.size_bytes || sha256Hex(bytes) !== ref.sha256) {
        throw new IntegrityError({ code: 'ARTIFACT.HASH_MISMATCH', message: `The bytes of ${artifactId} do not match its reference.`, retryable: false });
      }
      const text = () => new TextDecoder().decode(bytes);
      return { ref, bytes, text, json: <T>() => JSON.parse(text()) as T };
    },
  };

  /** Drains the connection: replies in flight are delivered, then it closes. */
  async close(): Promise<void> {
    await this.nc.drain();
  }

  private async *follow(runId: string, opts: FollowOptions): AsyncGenerator<RunEvent> {
    let after = opts.after ?? 0;
    const waitMs = Math.min(opts.waitMs ?? 15_000, 20_000);
    while (!opts.signal?.aborted) {
      const page = await this.rq.request<CallerRunEvents>(this.own('runs.events'), { run_id: runId, after, wait_ms: waitMs }, { timeoutMs: waitMs + 10_000 });
      for (const event of page.events) yield event;
      after = page.next;
      if (page.terminal) return;
    }
  }
}

function encodeContent(input: ArtifactInput): { bytes: Uint8Array; mediaType: string } {
  if (input.content instanceof Uint8Array) return { bytes: input.content, mediaType: input.mediaType ?? 'application/octet-stream' };
  if (typeof input.content === 'string') return { bytes: new TextEncoder().encode(input.content), mediaType: input.mediaType ?? 'text/plain' };
  return { bytes: new TextEncoder().encode(JSON.stringify(input.content)), mediaType: input.mediaType ?? 'application/json' };
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
