import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { CallerRun, CallerRunCancelRequestDto, CallerRunEvents, CallerRunEventsRequestDto, CallerRunQueryDto, RunCancelResult, SUBJECTS } from '@runledger/contracts';
import { callerOf, RequestContext, RequestHandler, validateMessage } from '@runledger/messaging';
import { CallerRuns } from './caller-runs';

/** A caller's own runs (rl.caller.<identity>.runs.*): the identity is the subject's, see callerOf. */
@Controller()
export class CallerRunsController {
  constructor(private readonly runs: CallerRuns) {}

  @RequestHandler(SUBJECTS.callerRunsGet)
  get(@Payload() raw: unknown, @Ctx() ctx: RequestContext): Promise<CallerRun> {
    const caller = callerOf(ctx);
    return this.runs.get(caller, validateMessage(CallerRunQueryDto, raw).run_id);
  }

  @RequestHandler(SUBJECTS.callerRunsEvents)
  events(@Payload() raw: unknown, @Ctx() ctx: RequestContext): Promise<CallerRunEvents> {
    const caller = callerOf(ctx);
    return this.runs.events(caller, validateMessage(CallerRunEventsRequestDto, raw));
  }

  @RequestHandler(SUBJECTS.callerRunsCancel)
  cancel(@Payload() raw: unknown, @Ctx() ctx: RequestContext): Promise<RunCancelResult> {
    const caller = callerOf(ctx);
    const q = validateMessage(CallerRunCancelRequestDto, raw);
    return this.runs.cancel(caller, q.run_id, q.reason);
  }
}
