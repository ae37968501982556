import { DynamicModule, Module } from '@nestjs/common';
import { documentStoreProvider, MessagingModule, ServiceRuntime } from '@runledger/messaging';
import { AuditChainWriter } from './app/audit-chain.writer';
import { AuditLedgerService } from './app/audit-ledger.service';
import { AuditController } from './transport/audit.controller';

@Module({})
export class AuditLedgerModule {
  static forRuntime(runtime: ServiceRuntime): DynamicModule {
    return {
      module: AuditLedgerModule,
      imports: [MessagingModule.forRuntime(runtime)],
      controllers: [AuditController],
      providers: [AuditLedgerService, AuditChainWriter, documentStoreProvider(runtime)],
    };
  }
}
