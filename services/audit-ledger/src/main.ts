import { runServiceMain } from '@runledger/messaging';
import { AuditLedgerModule } from './audit-ledger.module';

// The audit ledger reads the log as it is stored: its chain hashes the sealed data, so an erasure never breaks it.
runServiceMain('audit-ledger', (runtime) => AuditLedgerModule.forRuntime(runtime), { rawLog: true });
