import { DynamicModule, Module } from '@nestjs/common';
import { MessagingModule, ServiceRuntime } from '@runledger/messaging';
import { PolicyCatalog } from '@runledger/policy-catalog';
import { CallerVerifier, RunRepository } from '@runledger/runs';
import { ArtifactClient, runControlController } from '@runledger/service-clients';
import { ExportService } from './app/export.service';
import { ExportController } from './transport/export.controller';

@Module({})
export class ExportModule {
  static async forRuntime(runtime: ServiceRuntime): Promise<DynamicModule> {
    // A bad policy stops the service at start; pinned older versions are resolved from the log.
    const policies = new PolicyCatalog(runtime.log);
    await policies.start();
    return {
      module: ExportModule,
      imports: [MessagingModule.forRuntime(runtime)],
      controllers: [ExportController, runControlController('export')],
      providers: [
        ExportService,
        ArtifactClient,
        { provide: PolicyCatalog, useValue: policies },
        { provide: RunRepository, useValue: new RunRepository(runtime.log) },
        { provide: CallerVerifier, useFactory: (runs: RunRepository) => new CallerVerifier(runs), inject: [RunRepository] },
      ],
    };
  }
}
