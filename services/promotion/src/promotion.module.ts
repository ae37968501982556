import { DynamicModule, Module } from '@nestjs/common';
import { MessagingModule, ServiceRuntime } from '@runledger/messaging';

@Module({})
export class PromotionModule {
  static forRuntime(runtime: ServiceRuntime): DynamicModule {
    return { module: PromotionModule, imports: [MessagingModule.forRuntime(runtime)] };
  }
}
