import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { SUBJECTS, ToolInvocationDto, ToolInvocationResult } from '@runledger/contracts';
import { RequestHandler, validateMessage } from '@runledger/messaging';
import { ToolGatewayService } from '../app/tool-gateway.service';

@Controller()
export class ToolController {
  constructor(private readonly gateway: ToolGatewayService) {}

  @RequestHandler(SUBJECTS.toolInvoke)
  invoke(@Payload() raw: unknown): Promise<ToolInvocationResult> {
    return this.gateway.invoke(validateMessage(ToolInvocationDto, raw));
  }
}
