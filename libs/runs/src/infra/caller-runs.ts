import { AppError } from '@runledger/kernel';
import type { RunCreatedData } from '../domain/run-events';
import type { LoadedRun, RunRepository } from './run-repository';

/**
 * A run as one caller may see it (issue 26 caller-scoped reads): a run whose RunCreated records that caller as
 * `requested_by`, or an agent run decision started for nobody inside the tree of such a run (a sub-agent session: its
 * root is the caller's). The choke points' child runs (tool_gateway, db_write, promotion, export) stay the
 * governance's: the caller sees their outcomes in its own run's events. Any other run — another caller's, a service's
 * own, a forged one, none at all — is RUN.NOT_FOUND alike, so a caller learns nothing of runs that are not its own,
 * not even that they exist.
 */
export async function loadCallersRun(runs: RunRepository, runId: string, caller: string): Promise<LoadedRun> {
  // A forged run is no caller's (its RunCreated is not its owner's): not found alike, not even that something is there.
  const loaded = await loadUnlessForged(runs, runId);
  if (!loaded) throw notCallers();
  return callersRun(runs, loaded, caller);
}

/** The loaded run if it is `caller`'s (see loadCallersRun), else RUN.NOT_FOUND. */
export async function callersRun(runs: RunRepository, loaded: LoadedRun, caller: string): Promise<LoadedRun> {
  if (!(await isCallersRun(runs, loaded.state.run, caller))) throw notCallers();
  return loaded;
}

/** Whether `run` (its RunCreated) is `caller`'s: see loadCallersRun. */
export async function isCallersRun(runs: RunRepository, run: Pick<RunCreatedData, 'run_id' | 'run_kind' | 'root_run_id' | 'requested_by'> | undefined, caller: string): Promise<boolean> {
  if (!run) return false;
  if (run.requested_by !== undefined) return run.requested_by === caller;
  if (run.run_kind !== 'agent' || !run.root_run_id || run.root_run_id === run.run_id) return false;
  // Only the root's creation is read (its requested_by), not the whole root run.
  const root = await runs.created(run.root_run_id);
  return root?.type === 'RunCreated' && (root.data as Partial<RunCreatedData>).requested_by === caller;
}

/** The run as its owner wrote it; undefined for a forged one, which a caller's request treats as no run at all. */
export function loadUnlessForged(runs: RunRepository, runId: string): Promise<LoadedRun | undefined> {
  return runs.load(runId).catch((err: unknown) => {
    if (err instanceof AppError && err.code === 'RUN.FORGED') return undefined;
    throw err;
  });
}

export const notCallers = () => new AppError('RUN.NOT_FOUND', 'No run with that id was started by this caller.');
