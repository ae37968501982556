import { DynamicModule, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import type { DocumentStore } from '@runledger/document-store';
import { DOCUMENT_STORE, sealedDocumentStoreProvider, MessagingModule, ServiceRuntime } from '@runledger/messaging';
import { CALLER_GRANTS, loadCallerGrants, PolicyCatalog } from '@runledger/policy-catalog';
import { CallerVerifier, RunRepository } from '@runledger/runs';
import { ArtifactClient, runControlController } from '@runledger/service-clients';
import { CaseSourcesReader, SCREEN_LIMITS } from './app/case-sources';
import { PromotionTickets } from './app/promotion-tickets';
import { PromotionService } from './app/promotion.service';
import { screenLimitsFrom } from './domain/case-text';
import { PromotionController } from './transport/promotion.controller';

@Module({})
export class PromotionModule implements OnApplicationShutdown {
  constructor(@Inject(DOCUMENT_STORE) private readonly store: DocumentStore) {}

  static async forRuntime(runtime: ServiceRuntime): Promise<DynamicModule> {
    // A bad policy stops the service at start; pinned older versions are resolved from the log.
    const policies = new PolicyCatalog(runtime.log);
    await policies.start();
    return {
      module: PromotionModule,
      imports: [MessagingModule.forRuntime(runtime)],
      controllers: [PromotionController, runControlController('promotion')],
      providers: [
        PromotionService,
        CaseSourcesReader,
        PromotionTickets,
        ArtifactClient,
        // How much of a case one screen reads; a case past a limit is refused (PROMOTION.SCREEN_INCOMPLETE), not half-screened.
        { provide: SCREEN_LIMITS, useValue: screenLimitsFrom(process.env) },
        { provide: PolicyCatalog, useValue: policies },
        // Which caller roles approve promotion tickets (policy/callers.yaml acts_as); a bad file stops the service.
        { provide: CALLER_GRANTS, useValue: loadCallerGrants() },
        { provide: RunRepository, useValue: new RunRepository(runtime.log) },
        { provide: CallerVerifier, useFactory: (runs: RunRepository) => new CallerVerifier(runs), inject: [RunRepository] },
        sealedDocumentStoreProvider(runtime),
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
