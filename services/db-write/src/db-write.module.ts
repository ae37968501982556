import { DynamicModule, Module, OnApplicationShutdown, Inject } from '@nestjs/common';
import type { DocumentStore } from '@runledger/document-store';
import { DOCUMENT_STORE, documentStoreProvider, MessagingModule, ServiceRuntime } from '@runledger/messaging';
import { PolicyCatalog } from '@runledger/policy-catalog';
import { RunRepository } from '@runledger/runs';
import { DbWriteService } from './app/db-write.service';
import { DbController } from './transport/db.controller';

@Module({})
export class DbWriteModule implements OnApplicationShutdown {
  constructor(@Inject(DOCUMENT_STORE) private readonly store: DocumentStore) {}

  static async forRuntime(runtime: ServiceRuntime): Promise<DynamicModule> {
    const policies = new PolicyCatalog(runtime.log);
    await policies.start();
    return {
      module: DbWriteModule,
      imports: [MessagingModule.forRuntime(runtime)],
      controllers: [DbController],
      providers: [
        DbWriteService,
        { provide: PolicyCatalog, useValue: policies },
        { provide: RunRepository, useValue: new RunRepository(runtime.log) },
        documentStoreProvider(runtime),
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
