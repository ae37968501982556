import type { Provider } from '@nestjs/common';
import type { ServiceRuntime } from '@runledger/messaging';
import { ARTIFACT_STORE, ArtifactStore } from './artifact-store';
import type { GridFsArtifactStore as GridFsStore } from './gridfs-artifact-store';
import { NatsObjectArtifactStore } from './nats-object-artifact-store';
import { settingText } from '@runledger/kernel';

/** GridFS when MONGO_URL is set (the same switch as the document store), else the JetStream Object Store. */
export function createArtifactStore(runtime: Pick<ServiceRuntime, 'nc'>, env: NodeJS.ProcessEnv = process.env): ArtifactStore {
  const mongoUrl = settingText('MONGO_URL', env);
  if (!mongoUrl) return new NatsObjectArtifactStore(runtime.nc);
  // As for the document store: the mongodb driver is loaded only when MongoDB is configured.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { GridFsArtifactStore } = require('./gridfs-artifact-store') as { GridFsArtifactStore: typeof GridFsStore };
  return GridFsArtifactStore.connect(mongoUrl);
}

export function artifactStoreProvider(runtime: ServiceRuntime): Provider {
  return { provide: ARTIFACT_STORE, useFactory: () => createArtifactStore(runtime) };
}
