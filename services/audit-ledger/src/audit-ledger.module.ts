import { DynamicModule, Module } from '@nestjs/common';
import { loadOperatorRoles, OperatorActions } from '@runledger/policy-catalog';
import { auditHeadDir, auditKeyFile, documentStoreProvider, loadOrCreateAuditKey, MessagingModule, ServiceRuntime } from '@runledger/messaging';
import { AUDIT_SIGNER, AuditChainWriter, CHAIN_ANCHOR } from './app/audit-chain.writer';
import { AuditDecisions } from './app/audit-decisions';
import { AuditLedgerService } from './app/audit-ledger.service';
import { AuditTrails } from './app/audit-trails';
import { AuditVerifier } from './app/audit-verifier';
import { ChainAnchor } from './infra/chain-anchor';
import { DeadLettersService } from './app/dead-letters.service';
import { RunsIndexService } from './app/runs-index.service';
import { AuditController } from './transport/audit.controller';
import { OperationsController } from './transport/operations.controller';

@Module({})
export class AuditLedgerModule {
  static forRuntime(runtime: ServiceRuntime): DynamicModule {
    const keyFile = auditKeyFile();
    const heads = auditHeadDir();
    return {
      module: AuditLedgerModule,
      imports: [MessagingModule.forRuntime(runtime)],
      controllers: [AuditController, OperationsController],
      providers: [
        AuditLedgerService, AuditTrails, AuditDecisions, AuditChainWriter, AuditVerifier, RunsIndexService, DeadLettersService, documentStoreProvider(runtime),
        // The signing key is read (or generated) once at start: a ledger that cannot sign must not start.
        { provide: AUDIT_SIGNER, useFactory: () => loadOrCreateAuditKey(keyFile) },
        { provide: CHAIN_ANCHOR, useFactory: () => ChainAnchor.open(keyFile, runtime.jsm, heads) },
        // Operators' roles (policy/operators.yaml) for rl.deadletters.retry: a bad file stops the ledger.
        {
          provide: OperatorActions,
          useFactory: async () => {
            const { policy, yaml } = loadOperatorRoles();
            const operators = new OperatorActions(runtime.log, policy, yaml);
            await operators.start();
            return operators;
          },
        },
      ],
    };
  }
}
