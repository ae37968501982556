import { runServiceMain } from '@runledger/messaging';
import { ExportModule } from './export.module';

runServiceMain('export', (runtime) => ExportModule.forRuntime(runtime));
