import { runServiceMain } from '@runledger/messaging';
import { IntentClassificationModule } from './intent-classification.module';

runServiceMain('intent-classification', (runtime) => IntentClassificationModule.forRuntime(runtime));
