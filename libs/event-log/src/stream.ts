import { DiscardPolicy, JetStreamManager, RetentionPolicy, StorageType, StreamConfig, type StreamInfo } from '@nats-io/jetstream';
import { settingNumber } from '@runledger/kernel';

/** Every log subject lives under this prefix, so one stream holds the whole log. */
export const LOG_SUBJECT_PREFIX = 'rl.log';
export const LOG_STREAM = 'RUNLEDGER_LOG';
/**
 * Where the log republishes each run commit it has stored (its stream sequence and subject in headers): the live feed
 * a waiter follows a run on. A copy comes from the server after the commit is stored and carries no reply subject,
 * so a follower hears no refused append and is handed no appender's acknowledgement inbox to answer. No service or client
 * identity may publish there; only the server does.
 */
export const LIVE_RUN_PREFIX = 'rl.live.run';

/**
 * The runs a log created by this release republishes: decision's (task runs, agent sessions, governed runs), the only
 * runs anyone waits for. The choke points' child runs (tool-gateway, db-write, promotion, export) are followed through
 * their parent's events and read on the log; copying their commits too cost four of a request's six copies, for nobody
 * (issue 22). A log created before keeps republishing every run (nats-server 2.9 cannot change a stream's RePublish).
 */
export const LIVE_RUNS_REPUBLISHED = { src: `${LOG_SUBJECT_PREFIX}.run.decision.>`, dest: `${LIVE_RUN_PREFIX}.decision.>` };

/**
 * The log's stream settings. Immutability: deny_delete and deny_purge, no rollups, discard new, no limits.
 * The duplicate window bounds how long a retried append is recognised by msgID alone; past it,
 * idempotency rests on deciding from state (a completed step is never decided again).
 */
export function logStreamConfig(overrides: Partial<StreamConfig> = {}): Partial<StreamConfig> & { name: string; subjects: string[] } {
  return {
    name: LOG_STREAM,
    subjects: [`${LOG_SUBJECT_PREFIX}.>`],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.New,
    max_msgs: -1,
    max_bytes: -1,
    max_age: 0,
    max_msgs_per_subject: -1,
    deny_delete: true,
    deny_purge: true,
    allow_rollup_hdrs: false,
    allow_direct: true,
    duplicate_window: 5 * 60 * 1_000_000_000,
    // Set when the log is created: nats-server 2.9 cannot add it to an existing stream (see LIVE_RUNS_REPUBLISHED).
    republish: LIVE_RUNS_REPUBLISHED,
    // Three replicas in production (RL_LOG_REPLICAS); a single test or dev server has one.
    num_replicas: settingNumber('RL_LOG_REPLICAS'),
    ...overrides,
  };
}

/**
 * Creates the log stream, or checks that an existing one is still immutable.
 * An existing stream whose immutability flags were lost is a configuration error: we refuse to start on it.
 */
export async function ensureLogStream(jsm: JetStreamManager, overrides: Partial<StreamConfig> = {}): Promise<void> {
  const wanted = logStreamConfig(overrides);
  let info;
  try {
    info = await jsm.streams.info(wanted.name);
  } catch (err) {
    if (!isStreamNotFound(err)) throw err;
    try {
      info = await jsm.streams.add(wanted);
    } catch (addErr) {
      // Only the bootstrap identity may create streams; a service meeting no log says so instead of a bare violation.
      if (/permission/i.test(String((addErr as Error).message))) throw new Error(`stream ${wanted.name} does not exist and this identity may not create it: run the bootstrap (npm start does) as the admin`);
      // Two services starting together may race to create it: the loser checks what the winner created.
      if (!String((addErr as Error).message).includes('already in use')) throw addErr;
      info = await jsm.streams.info(wanted.name);
    }
  }
  const problems = immutabilityProblems(info.config);
  if (problems.length) throw new Error(`stream ${wanted.name} is not an immutable log: ${problems.join(', ')}`);
}

/** What would let events be lost: deletes, purges, rollups, discarding old messages, or any limit. */
export function immutabilityProblems(c: Partial<StreamConfig>): string[] {
  return [
    !c.deny_delete && 'deletes allowed',
    !c.deny_purge && 'purges allowed',
    c.allow_rollup_hdrs && 'rollups allowed',
    c.discard !== DiscardPolicy.New && 'discards old messages',
    ((c.max_msgs ?? -1) > 0 || (c.max_bytes ?? -1) > 0 || (c.max_age ?? 0) > 0 || (c.max_msgs_per_subject ?? -1) > 0) && 'has limits',
  ].filter((p): p is string => Boolean(p));
}

function isStreamNotFound(err: unknown): boolean {
  const e = err as { code?: number; message?: string; apiError?: () => { err_code?: number } };
  const apiCode = typeof e?.apiError === 'function' ? e.apiError()?.err_code : undefined;
  return apiCode === 10059 || /stream not found/i.test(String(e?.message));
}

/**
 * Which log this is: its name, when it was created and its first message. An admin who deletes the log and creates it
 * again, or drops its oldest messages, cannot keep these (the audit anchor is bound to them). A log with no message
 * yet names the sequence its first will get (nats-server says 0 for a stream never written to), so the identity does
 * not change when the log is first written.
 */
export function logIdentityOf(info: Pick<StreamInfo, 'config' | 'created'> & { state: Pick<StreamInfo['state'], 'messages' | 'first_seq' | 'last_seq'> }): { stream: string; created: string; first_seq: number } {
  return { stream: info.config.name, created: info.created, first_seq: info.state.messages > 0 ? info.state.first_seq : info.state.last_seq + 1 };
}

/**
 * The subject a log with `republish` copies an aggregate's stored commits on (rl.log.run.<owner>.<id> on
 * rl.live.run.<owner>.<id>), or null when it does not copy that subject: a log created before the feed existed
 * (nats-server 2.9 cannot add it later), or a run it does not copy (LIVE_RUNS_REPUBLISHED: since issue 22 decision's
 * runs only; a log created before copies every run).
 */
export function liveSubjectOf(republish: StreamConfig['republish'] | undefined, subject: string): string | null {
  // `src.>` on `dest.>`: what follows src's prefix keeps its tokens under dest's.
  const src = republish?.src.endsWith('.>') ? republish.src.slice(0, -1) : undefined;
  const dest = republish?.dest.endsWith('.>') ? republish.dest.slice(0, -1) : undefined;
  return src && dest?.startsWith(`${LIVE_RUN_PREFIX}.`) && subject.startsWith(src) ? `${dest}${subject.slice(src.length)}` : null;
}
