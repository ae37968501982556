import { DynamicModule, Module } from '@nestjs/common';
import { documentStoreProvider, MessagingModule, ServiceRuntime } from '@runledger/messaging';
import { AuditChainWriter } from './app/audit-chain.writer';
import { AuditLedgerService } from './app/audit-ledger.service';
import { DeadLettersService } from './app/dead-letters.service';
import { RunsIndexService } from './app/runs-index.service';
import { AuditController } from './transport/audit.controller';
import { OperationsController } from './transport/operations.controller';

@Module({})
export class AuditLedgerModule {
  static forRuntime(runtime: ServiceRuntime): DynamicModule {
    return {
      module: AuditLedgerModule,
      imports: [MessagingModule.forRuntime(runtime)],
      controllers: [AuditController, OperationsController],
      providers: [AuditLedgerService, AuditChainWriter, RunsIndexService, DeadLettersService, documentStoreProvider(runtime)],
    };
  }
}
