import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { RunsResolveRequestDto, RunsResolveResult, SUBJECTS } from '@runledger/contracts';
import { AppError } from '@runledger/kernel';
import { RequestHandler, validateMessage } from '@runledger/messaging';
import { RESOLVER_SETTINGS, ResolverSettings, RunResolver } from './run-resolver';

/** rl.runs.resolve (operators): one resolver sweep now, instead of waiting for the next scheduled one. */
@Controller()
export class ResolverController {
  constructor(private readonly resolver: RunResolver, @Inject(RESOLVER_SETTINGS) private readonly settings: ResolverSettings) {}

  @RequestHandler(SUBJECTS.runsResolve)
  resolve(@Payload() raw: unknown): Promise<RunsResolveResult> {
    const q = validateMessage(RunsResolveRequestDto, raw);
    if (q.idle_ms !== undefined && q.idle_ms < this.settings.minIdleMs) throw new AppError('REQUEST.INVALID', `idle_ms must be at least ${this.settings.minIdleMs} ms (RL_RESOLVER_MIN_IDLE_MS).`);
    return this.resolver.sweep(q.idle_ms ?? this.settings.idleMs, q.requested_by ?? 'operator');
  }
}
