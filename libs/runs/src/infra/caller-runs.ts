import { AppError } from '@runledger/kernel';
import type { LoadedRun, RunRepository } from './run-repository';

/**
 * A run as one caller may see it (issue 26 caller-scoped reads): only a run whose RunCreated records that caller as
 * `requested_by`. Any other run — another caller's, a service's, none at all — is RUN.NOT_FOUND alike, so a caller
 * learns nothing of runs that are not its own, not even that they exist.
 */
export async function loadCallersRun(runs: RunRepository, runId: string, caller: string): Promise<LoadedRun> {
  // A forged run is no caller's (its RunCreated is not its owner's): not found alike, not even that something is there.
  const loaded = await runs.load(runId).catch((err: unknown) => {
    if (err instanceof AppError && err.code === 'RUN.FORGED') throw notCallers();
    throw err;
  });
  return callersRun(loaded, caller);
}

/** The loaded run if `caller` started it (see loadCallersRun), else RUN.NOT_FOUND. */
export function callersRun(loaded: LoadedRun, caller: string): LoadedRun {
  if (loaded.state.run?.requested_by !== caller) throw notCallers();
  return loaded;
}

const notCallers = () => new AppError('RUN.NOT_FOUND', 'No run with that id was started by this caller.');
