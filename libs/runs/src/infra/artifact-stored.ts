import { aggregateRef, EventLog, isAggregateToken, StoredEvent } from '@runledger/event-log';

/**
 * The artifact store's own record of an artifact: the first `ArtifactStored` on `rl.log.artifact.<artifact_id>`, which
 * only db-write appends (deploy/nats/permissions.yaml), once per artifact, when it first stores the bytes. Its data is
 * the reference the bytes are held under (`artifact_ref`) and their first writer. Undefined: no artifact has that id.
 */
export async function artifactStored(log: EventLog, artifactId: string): Promise<StoredEvent | undefined> {
  // db-write's ids are subject tokens (art-<hex>): an id that is none names nothing stored.
  if (!isAggregateToken(artifactId)) return undefined;
  const subject = aggregateRef('artifact', artifactId);
  const first = await log.first(subject);
  if (!first) return undefined;
  // Nearly always the first event; a subject something else was stored on first is read whole.
  return first.type === 'ArtifactStored' ? first : (await log.read(subject)).find((e) => e.type === 'ArtifactStored');
}
