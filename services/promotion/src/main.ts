import { runServiceMain } from '@runledger/messaging';
import { PromotionModule } from './promotion.module';

runServiceMain('promotion', (runtime) => PromotionModule.forRuntime(runtime));
