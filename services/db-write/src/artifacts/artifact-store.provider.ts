import type { Provider } from '@nestjs/common';
import type { ServiceRuntime } from '@runledger/messaging';
import { ARTIFACT_STORE, ArtifactStore } from './artifact-store';
import { GridFsArtifactStore } from './gridfs-artifact-store';
import { NatsObjectArtifactStore } from './nats-object-artifact-store';

/** GridFS when MONGO_URL is set (the same switch as the document store), else the JetStream Object Store. */
export function createArtifactStore(runtime: Pick<ServiceRuntime, 'nc'>, env: NodeJS.ProcessEnv = process.env): ArtifactStore {
  return env.MONGO_URL ? GridFsArtifactStore.connect(env.MONGO_URL) : new NatsObjectArtifactStore(runtime.nc);
}

export function artifactStoreProvider(runtime: ServiceRuntime): Provider {
  return { provide: ARTIFACT_STORE, useFactory: () => createArtifactStore(runtime) };
}
