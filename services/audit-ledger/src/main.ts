import { runServiceMain } from '@runledger/messaging';
import { AuditLedgerModule } from './audit-ledger.module';

runServiceMain('audit-ledger', (runtime) => AuditLedgerModule.forRuntime(runtime));
