import { runServiceMain } from '@runledger/messaging';
import { AuditLedgerModule } from './audit-ledger.module';

// The audit ledger reads the log as it is stored: its chain hashes the sealed data, so an erasure never breaks it.
// Its durable is pulled and acked as audit-ledger-consumer only: on a secured server it does not start without that identity.
runServiceMain('audit-ledger', (runtime) => AuditLedgerModule.forRuntime(runtime), { rawLog: true, consumerIdentityRequired: true });
