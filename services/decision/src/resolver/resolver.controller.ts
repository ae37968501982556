import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { RunsResolveRequestDto, RunsResolveResult, SUBJECTS } from '@runledger/contracts';
import { AppError } from '@runledger/kernel';
import { RequestContext, RequestHandler, validateMessage } from '@runledger/messaging';
import { OperatorActions, operatorRequestId } from '@runledger/policy-catalog';
import { RESOLVER_SETTINGS, ResolverSettings, RunResolver } from './run-resolver';

/**
 * rl.runs.resolve (operators): one resolver sweep now, instead of waiting for the next scheduled one. The operator's
 * role must grant `resolve` (policy/operators.yaml), checked and recorded here, where the sweep runs.
 */
@Controller()
export class ResolverController {
  constructor(private readonly resolver: RunResolver, @Inject(RESOLVER_SETTINGS) private readonly settings: ResolverSettings, private readonly operators: OperatorActions) {}

  @RequestHandler(SUBJECTS.runsResolve)
  async resolve(@Payload() raw: unknown, @Ctx() ctx: RequestContext): Promise<RunsResolveResult> {
    const q = validateMessage(RunsResolveRequestDto, raw);
    if (q.idle_ms !== undefined && q.idle_ms < this.settings.minIdleMs) throw new AppError('REQUEST.INVALID', `idle_ms must be at least ${this.settings.minIdleMs} ms (RL_RESOLVER_MIN_IDLE_MS).`);
    const idleMs = q.idle_ms ?? this.settings.idleMs;
    const requestedBy = q.requested_by ?? 'operator';
    await this.operators.authorize({ action: 'resolve', request_id: operatorRequestId(ctx), requested_by: requestedBy, target: { idle_ms: String(idleMs) } });
    return this.resolver.sweep(idleMs, requestedBy);
  }
}
