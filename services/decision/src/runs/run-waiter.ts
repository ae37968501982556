import { Inject, Injectable } from '@nestjs/common';
import { decodeEnvelope } from '@runledger/event-log';
import { RUNTIME, ServiceRuntime } from '@runledger/messaging';
import { RunRepository, RunState, TERMINAL_TYPES, isTerminal } from '@runledger/runs';

/**
 * Waits for a run to reach a terminal event. JetStream also delivers appended events to core subscribers,
 * so a plain subscription on the run's subject sees the outcome the moment it is in the log; the log is read
 * once after subscribing so an outcome recorded earlier (a repeated request) is not missed.
 */
@Injectable()
export class RunWaiter {
  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime, private readonly runs: RunRepository) {}

  /** Subscribe first, then trigger the run, then await: no outcome can slip between the two. */
  watch(runId: string, timeoutMs: number): { outcome: Promise<RunState | 'timeout'>; cancel: () => void } {
    const sub = this.runtime.nc.subscribe(RunRepository.ref(runId).subject);
    let timer: NodeJS.Timeout | undefined;
    const cancel = () => {
      if (timer) clearTimeout(timer);
      sub.unsubscribe();
    };
    const terminalSeen = (async () => {
      for await (const m of sub) {
        try {
          if (TERMINAL_TYPES.has(decodeEnvelope(m.data).type)) return true;
        } catch {
          // not an event envelope; ignore
        }
      }
      return false;
    })();
    const outcome = (async (): Promise<RunState | 'timeout'> => {
      const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
      // An outcome already in the log (a repeated request) resolves at once.
      const alreadyDone = this.runs.load(runId).then(({ state }) => (isTerminal(state) ? true : new Promise<never>(() => undefined)));
      try {
        const first = await Promise.race([terminalSeen, timedOut, alreadyDone]);
        if (first === 'timeout') {
          const { state } = await this.runs.load(runId);
          return isTerminal(state) ? state : 'timeout';
        }
        return (await this.runs.load(runId)).state;
      } finally {
        cancel();
      }
    })();
    return { outcome, cancel };
  }
}
