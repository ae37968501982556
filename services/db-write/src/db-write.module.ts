import { DynamicModule, Module, OnApplicationShutdown, Inject } from '@nestjs/common';
import type { DocumentStore } from '@runledger/document-store';
import { DOCUMENT_STORE, KvDataKeyStore, sealedDocumentStoreProvider, MessagingModule, ServiceRuntime } from '@runledger/messaging';
import { CALLER_GRANTS, loadCallerGrants, PolicyCatalog } from '@runledger/policy-catalog';
import { CallerVerifier, RunRepository } from '@runledger/runs';
import { runControlController } from '@runledger/service-clients';
import { DbWriteService } from './app/db-write.service';
import { ARTIFACT_STORE, ArtifactStore } from './artifacts/artifact-store';
import { artifactStoreProvider } from './artifacts/artifact-store.provider';
import { ArtifactsController } from './artifacts/artifacts.controller';
import { ArtifactsService } from './artifacts/artifacts.service';
import { DbController } from './transport/db.controller';
import { IngestController } from './ingest/ingest.controller';
import { IngestService, STORED_DATA_KEYS } from './ingest/ingest.service';

@Module({})
export class DbWriteModule implements OnApplicationShutdown {
  constructor(@Inject(DOCUMENT_STORE) private readonly store: DocumentStore, @Inject(ARTIFACT_STORE) private readonly artifacts: ArtifactStore) {}

  static async forRuntime(runtime: ServiceRuntime): Promise<DynamicModule> {
    const policies = new PolicyCatalog(runtime.log);
    await policies.start();
    return {
      module: DbWriteModule,
      imports: [MessagingModule.forRuntime(runtime)],
      controllers: [DbController, ArtifactsController, IngestController, runControlController('db-write')],
      providers: [
        DbWriteService,
        ArtifactsService,
        IngestService,
        { provide: STORED_DATA_KEYS, useValue: new KvDataKeyStore(runtime.nc) },
        // Read at start: a bad policy/callers.yaml stops db-write (as a bad lanes/roles policy does).
        { provide: CALLER_GRANTS, useValue: loadCallerGrants() },
        artifactStoreProvider(runtime),
        { provide: PolicyCatalog, useValue: policies },
        { provide: RunRepository, useValue: new RunRepository(runtime.log) },
        { provide: CallerVerifier, useFactory: (runs: RunRepository) => new CallerVerifier(runs), inject: [RunRepository] },
        sealedDocumentStoreProvider(runtime),
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.store.close(), this.artifacts.close()]);
  }
}
