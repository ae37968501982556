import { runServiceMain } from '@runledger/messaging';
import { DecisionModule } from './decision.module';

runServiceMain('decision', (runtime) => DecisionModule.forRuntime(runtime));
