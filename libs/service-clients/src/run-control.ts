import { Controller, Inject, Injectable, Logger, type Type } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { RunControlRequestDto, SUBJECTS, type RunControlRequest, type RunControlResult } from '@runledger/contracts';
import { type Clock, settingNumber } from '@runledger/kernel';
import { Bus, CLOCK, RequestHandler, validateMessage } from '@runledger/messaging';
import { RunControl, RunRepository, type RunControlCommand, type RunOwner } from '@runledger/runs';

/** rl.runs.control.<owner> as telemetry names it (one template for every owner). */
const TEMPLATE = 'rl.runs.control.{owner}';
/** A control command loads a few runs and appends once: far less than this. */
const CONTROL_TIMEOUT_MS = 30_000;

/**
 * Decision's client of rl.runs.control.<owner> (issue 23): asks the service that owns a run to cancel or resolve it,
 * since only the owner may append to its runs. An owner that is down answers DEPENDENCY.DOWN (no responders).
 */
@Injectable()
export class RunControlClient {
  constructor(private readonly bus: Bus) {}

  send(owner: RunOwner, command: RunControlRequest): Promise<RunControlResult> {
    return this.bus.request<RunControlResult>(SUBJECTS.runsControl(owner), command, { timeoutMs: CONTROL_TIMEOUT_MS, subjectTemplate: TEMPLATE });
  }
}

/**
 * The controller a run owner (tool-gateway, db-write, promotion, export) serves rl.runs.control.<its name> with: one
 * class per owner, since the subject names it (permissions.yaml lets only decision publish there). See RunControl.
 */
export function runControlController(owner: Exclude<RunOwner, 'decision'>): Type<unknown> {
  @Controller()
  class RunControlController {
    private readonly control: RunControl;

    constructor(runs: RunRepository, @Inject(CLOCK) clock: Clock) {
      const logger = new Logger('RunControl');
      this.control = new RunControl(runs, owner, clock, {
        minIdleMs: settingNumber('RL_RESOLVER_MIN_IDLE_MS'),
        refused: (run_id, error) => logger.error({ msg: 'resolution refused by the run lifecycle; run left open', run_id, error }),
      });
    }

    @RequestHandler(SUBJECTS.runsControl(owner))
    handle(@Payload() raw: unknown): Promise<RunControlResult> {
      return this.control.handle(validateMessage(RunControlRequestDto, raw) as RunControlCommand);
    }
  }
  return RunControlController;
}
