import { runServiceMain } from '@runledger/messaging';
import { DbWriteModule } from './db-write.module';

runServiceMain('db-write', (runtime) => DbWriteModule.forRuntime(runtime));
