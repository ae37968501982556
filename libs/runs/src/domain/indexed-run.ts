import type { StoredEvent } from '@runledger/event-log';
import { isServed, ownerOfKind, trackCommit, type RunTrack } from './run-ownership';
import { evolveRunSummary, type RunSummary } from './run-summary';

/**
 * A row of the runs index (services/audit-ledger): the run's summary, and the ownership track of its run id (issue 23),
 * kept with it so the check resumes where it was after a restart. The track is never part of an answer (listedRow).
 */
export type IndexedRun = RunSummary & { ownership?: RunTrack };

type IndexedEvent = Pick<StoredEvent, 'type' | 'data' | 'metadata' | 'seq' | 'index' | 'subject'>;

/**
 * Folds one run id's events (log order; a commit's events together) into its row: only the events of the run its
 * owner wrote (the rules of OwnershipCheck, the ones readers and audit apply), so a forged run, or another service's
 * events under the run's id, never show in the index as a run. `folded`: each event folded into the summary.
 */
export function evolveIndexedRun(row: IndexedRun, events: readonly IndexedEvent[], folded?: (type: string, after: RunSummary) => void): IndexedRun {
  let track = row.ownership ?? trackOfEarlierRow(row);
  let next: IndexedRun = row;
  for (let i = 0; i < events.length;) {
    let j = i + 1;
    while (j < events.length && events[j].seq === events[i].seq) j++;
    const commit = events.slice(i, j);
    i = j;
    const step = trackCommit(track, commit.map((e) => ({ ...e, metadata: { producer: e.metadata.producer } })));
    track = step.track;
    if (!step.inRun) continue;
    for (const event of commit) {
      const after = evolveRunSummary(next, event);
      if (after !== next) folded?.(event.type, after);
      next = after;
    }
  }
  const sameTrack = row.ownership !== undefined && JSON.stringify(track) === JSON.stringify(row.ownership);
  return next === row && sameTrack ? row : { ...next, ownership: track };
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
