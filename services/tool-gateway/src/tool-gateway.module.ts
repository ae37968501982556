import { DynamicModule, Logger, Module } from '@nestjs/common';
import { MessagingModule, ServiceRuntime } from '@runledger/messaging';
import { PolicyCatalog } from '@runledger/policy-catalog';
import { CallerVerifier, RunRepository } from '@runledger/runs';
import { runControlController } from '@runledger/service-clients';
import { GATEWAY_LIMITS, TOOL_REGISTRY, ToolGatewayService } from './app/tool-gateway.service';
import { limitsFromEnv } from './app/limits';
import { buildToolRegistry } from './tools';
import { connectMcpServers } from '@runledger/agent-session';
import { mcpConfigFromEnv } from './mcp/mcp-config';
import { BrowserShutdown } from './tools/browser-shutdown';
import { ToolController } from './transport/tool.controller';
import { TOOL_SOURCES, ToolListController } from './transport/tool-list.controller';
import { ALL_TOOLS } from './tools';

@Module({})
export class ToolGatewayModule {
  static async forRuntime(runtime: ServiceRuntime): Promise<DynamicModule> {
    const policies = new PolicyCatalog(runtime.log);
    await policies.start();
    // MCP servers (RL_MCP_SERVERS) are connected once at start; their tools join the built-in ones.
    const logger = new Logger('ToolGateway');
    const mcp = await connectMcpServers(mcpConfigFromEnv(), (server, error) => logger.error({ msg: 'MCP server failed to start; its tools are unavailable', server, error: error.message }));
    const sources = new Map<string, { source: string; queue?: string }>([
      ...ALL_TOOLS.map((t) => [t.name, { source: 'builtin' }] as const),
      ...mcp.flatMap((c) => c.tools.map((t) => [t.name, { source: c.server, queue: c.queue }] as const)),
    ]);
    const registry = buildToolRegistry();
    // An MCP tool whose schema does not compile is left out (and logged); it must not take the gateway down.
    for (const tool of mcp.flatMap((c) => c.tools)) {
      const registered = registry.register(tool);
      if (!registered.ok) logger.error({ msg: 'MCP tool refused: invalid definition', tool: tool.name, error: registered.message });
    }
    return {
      module: ToolGatewayModule,
      imports: [MessagingModule.forRuntime(runtime)],
      controllers: [ToolController, ToolListController, runControlController('tool-gateway')],
      providers: [
        ToolGatewayService, BrowserShutdown,
        { provide: PolicyCatalog, useValue: policies },
        { provide: RunRepository, useValue: new RunRepository(runtime.log) },
        { provide: CallerVerifier, useFactory: (runs: RunRepository) => new CallerVerifier(runs), inject: [RunRepository] },
        { provide: TOOL_REGISTRY, useValue: registry },
        { provide: TOOL_SOURCES, useValue: sources },
        { provide: GATEWAY_LIMITS, useFactory: () => limitsFromEnv() },
      ],
    };
  }
}
