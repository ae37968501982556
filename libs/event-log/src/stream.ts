import { DiscardPolicy, JetStreamManager, RetentionPolicy, StorageType, StreamConfig } from '@nats-io/jetstream';

/** Every log subject lives under this prefix, so one stream holds the whole log. */
export const LOG_SUBJECT_PREFIX = 'rl.log';
export const LOG_STREAM = 'RUNLEDGER_LOG';

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
    // Three replicas in production (RL_LOG_REPLICAS); a single test or dev server has one.
    num_replicas: Number(process.env.RL_LOG_REPLICAS ?? 1),
    ...overrides,
  };
}

/**
 * Creates the log stream, or checks that an existing one is still immutable.
 * An existing stream whose immutability flags were lost is a configuration error: we refuse to start on it.
 */
export async function ensureLogStream(jsm: JetStreamManager, overrides: Partial<StreamConfig> = {}): Promise<void> {
  const wanted = logStreamConfig(overrides);
  try {
    const info = await jsm.streams.info(wanted.name);
    const c = info.config;
    if (!c.deny_delete || !c.deny_purge || c.allow_rollup_hdrs) {
      throw new Error(`stream ${wanted.name} exists but is not immutable (deny_delete/deny_purge/no rollups)`);
    }
  } catch (err) {
    if (isStreamNotFound(err)) {
      try {
        await jsm.streams.add(wanted);
      } catch (addErr) {
        // Two services starting together may race to create it; the loser checks it again.
        if (!String((addErr as Error).message).includes('already in use')) throw addErr;
      }
      return;
    }
    throw err;
  }
}

function isStreamNotFound(err: unknown): boolean {
  const e = err as { code?: number; message?: string; apiError?: () => { err_code?: number } };
  const apiCode = typeof e?.apiError === 'function' ? e.apiError()?.err_code : undefined;
  return apiCode === 10059 || /stream not found/i.test(String(e?.message));
}
