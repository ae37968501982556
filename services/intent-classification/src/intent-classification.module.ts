import { DynamicModule, Module } from '@nestjs/common';
import { MessagingModule, ServiceRuntime } from '@runledger/messaging';
import { classifierFromEnv } from './app/classifier';
import { ClassifyController, CLASSIFIER } from './transport/classify.controller';

@Module({})
export class IntentClassificationModule {
  static forRuntime(runtime: ServiceRuntime): DynamicModule {
    return {
      module: IntentClassificationModule,
      imports: [MessagingModule.forRuntime(runtime)],
      controllers: [ClassifyController],
      providers: [{ provide: CLASSIFIER, useFactory: () => classifierFromEnv() }],
    };
  }
}
