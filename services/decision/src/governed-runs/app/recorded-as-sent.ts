import { canonicalUuid } from '@runledger/kernel';
import { RunRepository } from '@runledger/runs';

/**
 * Upgrade rule (README "Run ids are read in lower case"): before run ids were read in lower case, a run a caller named
 * with an upper- or mixed-case `run_id` was recorded under that id as sent. When no run exists under the lower-case id
 * `id` and the request sent it otherwise (`sent`, the raw message's value), the id as sent is looked up: a run recorded
 * under it keeps that id, so a retry (or a fork of it) finds it and gets its outcome instead of starting a second run.
 * Undefined when there is no such run (the lower-case id is then the one to use).
 */
export async function recordedAsSent(runs: RunRepository, id: string, sent: unknown): Promise<{ run_id: string; loaded: Awaited<ReturnType<RunRepository['load']>> } | undefined> {
  if (typeof sent !== 'string' || sent === id || canonicalUuid(sent) !== id) return undefined;
  const loaded = await runs.load(sent);
  return loaded.state.run ? { run_id: sent, loaded } : undefined;
}

/** The raw message's `run_id`, as sent (before IsRunId read it in lower case). */
export function sentRunId(raw: unknown): unknown {
  return raw !== null && typeof raw === 'object' ? (raw as { run_id?: unknown }).run_id : undefined;
}
