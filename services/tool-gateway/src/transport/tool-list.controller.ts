import { Controller, Inject } from '@nestjs/common';
import type { ToolRegistry } from '@runledger/agent-runtime';
import { SUBJECTS, ToolListReply } from '@runledger/contracts';
import { RequestHandler } from '@runledger/messaging';
import { TOOL_REGISTRY } from '../app/tool-gateway.service';

export const TOOL_SOURCES = Symbol('TOOL_SOURCES');

/** rl.tool.list: what the gateway can run and the schema each input is validated against. */
@Controller()
export class ToolListController {
  constructor(
    @Inject(TOOL_REGISTRY) private readonly tools: ToolRegistry,
    @Inject(TOOL_SOURCES) private readonly sources: ReadonlyMap<string, { source: string; queue?: string }>,
  ) {}

  @RequestHandler(SUBJECTS.toolList)
  list(): ToolListReply {
    return {
      tools: this.tools.list().map((name) => {
        const tool = this.tools.get(name)!;
        const src = this.sources.get(name) ?? { source: 'builtin' };
        return {
          name, input_schema: tool.inputSchema as Record<string, unknown>, source: src.source,
          ...(tool.description ? { description: tool.description } : {}), ...(src.queue ? { queue: src.queue } : {}),
        };
      }),
    };
  }
}
