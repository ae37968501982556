import { DynamicModule, Module } from '@nestjs/common';
import { MessagingModule, ServiceRuntime } from '@runledger/messaging';

@Module({})
export class ExportModule {
  static forRuntime(runtime: ServiceRuntime): DynamicModule {
    return { module: ExportModule, imports: [MessagingModule.forRuntime(runtime)] };
  }
}
