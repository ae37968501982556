import type { StoredEvent } from '@runledger/event-log';
import { isServed, ownerOfKind, trackCommit, type RunTrack } from './run-ownership';
import { foldRunEvent, foldsInto, type RunSummary } from './run-summary';

/**
 * A row of the runs index (services/audit-ledger): the run's summary, and the ownership track of its run id (issue 23),
 * kept with it so the check resumes where it was after a restart. The track is never part of an answer (listedRow).
 */
export type IndexedRun = RunSummary & { ownership?: RunTrack };

type IndexedEvent = Pick<StoredEvent, 'type' | 'data' | 'metadata' | 'seq' | 'index' | 'subject'>;

/**
 * Folds one run id's events (log order; a commit's events together) into its row: only the events of the run its
 * owner wrote (the rules of OwnershipCheck, the ones readers and audit apply), so a forged run, or another service's
 * events under the run's id, never show in the index as a run. Returns the row itself when nothing changed, else a new
 * row: one copy for the whole batch (issue 22: a copy per event was a good part of the ledger's garbage).
 * `folded`: each event folded into the summary, with the row as it is right after it; that row is the fold's working
 * copy, so read it during the call, never keep it.
 */
export function evolveIndexedRun(row: IndexedRun, events: readonly IndexedEvent[], folded?: (type: string, after: RunSummary) => void): IndexedRun {
  let track = row.ownership ?? trackOfEarlierRow(row);
  let next: IndexedRun | null = null;
  for (let i = 0; i < events.length;) {
    let j = i + 1;
    while (j < events.length && events[j].seq === events[i].seq) j++;
    const step = trackCommit(track, events.slice(i, j));
    track = step.track;
    for (let k = i; step.inRun && k < j; k++) {
      const event = events[k];
      if (!foldsInto(next ?? row, event)) continue;
      next ??= { ...row };
      foldRunEvent(next, event);
      folded?.(event.type, next);
    }
    i = j;
  }
  if (next) {
    next.ownership = track;
    return next;
  }
  return row.ownership !== undefined && sameTrack(track, row.ownership) ? row : { ...row, ownership: track };
}

/** Whether two ownership tracks say the same (trackCommit copies the track for every commit, so identity says nothing). */
function sameTrack(a: RunTrack | undefined, b: RunTrack): boolean {
  if (!a || a.owner !== b.owner || a.legacyOwner !== b.legacyOwner) return false;
  if (a.foreign !== b.foreign && JSON.stringify(a.foreign) !== JSON.stringify(b.foreign)) return false;
  const groups = Object.keys(a.groups);
  return groups.length === Object.keys(b.groups).length && groups.every((g) => a.groups[g] === b.groups[g]);
}

/**
 * A row indexed before the index kept ownership (no track): the run it folded is taken as its owner's, as it was
 * listed then; its next events are checked against that owner.
 */
function trackOfEarlierRow(row: IndexedRun): RunTrack | undefined {
  const owner = row.event_count > 0 ? ownerOfKind(row.run_kind ?? undefined) : undefined;
  return owner ? { owner, legacyOwner: owner, groups: { [owner]: 'run' } } : undefined;
}

/** Whether the index lists the row: a run its owner wrote (a row indexed before tracks were kept: as it was). */
export function isListed(row: IndexedRun): boolean {
  return row.ownership ? isServed(row.ownership) : true;
}

/** The row as rl.runs.list answers it (the wire RunSummary), without its ownership track. */
export function listedRow(row: IndexedRun): RunSummary {
  const { ownership: _track, ...summary } = row;
  return summary;
}
