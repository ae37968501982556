import { DynamicModule, Module } from '@nestjs/common';
import { MessagingModule, ServiceRuntime } from '@runledger/messaging';
import { PolicyCatalog } from '@runledger/policy-catalog';
import { CallerVerifier, RunRepository } from '@runledger/runs';
import { GATEWAY_LIMITS, TOOL_REGISTRY, ToolGatewayService } from './app/tool-gateway.service';
import { limitsFromEnv } from './app/limits';
import { buildToolRegistry } from './tools';
import { BrowserShutdown } from './tools/browser-shutdown';
import { ToolController } from './transport/tool.controller';

@Module({})
export class ToolGatewayModule {
  static async forRuntime(runtime: ServiceRuntime): Promise<DynamicModule> {
    const policies = new PolicyCatalog(runtime.log);
    await policies.start();
    return {
      module: ToolGatewayModule,
      imports: [MessagingModule.forRuntime(runtime)],
      controllers: [ToolController],
      providers: [
        ToolGatewayService, BrowserShutdown,
        { provide: PolicyCatalog, useValue: policies },
        { provide: RunRepository, useValue: new RunRepository(runtime.log) },
        { provide: CallerVerifier, useFactory: (runs: RunRepository) => new CallerVerifier(runs), inject: [RunRepository] },
        { provide: TOOL_REGISTRY, useFactory: () => buildToolRegistry() },
        { provide: GATEWAY_LIMITS, useFactory: () => limitsFromEnv() },
      ],
    };
  }
}
