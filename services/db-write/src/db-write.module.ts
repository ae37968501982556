import { DynamicModule, Module, OnApplicationShutdown, Inject } from '@nestjs/common';
import type { DocumentStore } from '@runledger/document-store';
import { DOCUMENT_STORE, documentStoreProvider, MessagingModule, ServiceRuntime } from '@runledger/messaging';
import { PolicyCatalog } from '@runledger/policy-catalog';
import { CallerVerifier, RunRepository } from '@runledger/runs';
import { DbWriteService } from './app/db-write.service';
import { ARTIFACT_STORE, ArtifactStore } from './artifacts/artifact-store';
import { artifactStoreProvider } from './artifacts/artifact-store.provider';
import { ArtifactsController } from './artifacts/artifacts.controller';
import { ArtifactsService } from './artifacts/artifacts.service';
import { DbController } from './transport/db.controller';

@Module({})
export class DbWriteModule implements OnApplicationShutdown {
  constructor(@Inject(DOCUMENT_STORE) private readonly store: DocumentStore, @Inject(ARTIFACT_STORE) private readonly artifacts: ArtifactStore) {}

  static async forRuntime(runtime: ServiceRuntime): Promise<DynamicModule> {
    const policies = new PolicyCatalog(runtime.log);
    await policies.start();
    return {
      module: DbWriteModule,
      imports: [MessagingModule.forRuntime(runtime)],
      controllers: [DbController, ArtifactsController],
      providers: [
        DbWriteService,
        ArtifactsService,
        artifactStoreProvider(runtime),
        { provide: PolicyCatalog, useValue: policies },
        { provide: RunRepository, useValue: new RunRepository(runtime.log) },
        { provide: CallerVerifier, useFactory: (runs: RunRepository) => new CallerVerifier(runs), inject: [RunRepository] },
        documentStoreProvider(runtime),
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.store.close(), this.artifacts.close()]);
  }
}
