import { RunEvent, RunRepository, RunState } from '@runledger/runs';

type RunLinks = { run_id: string; root_run_id: string; parent_run_id?: string; case_id?: string; correlation_id?: string };

/**
 * The single writer of one agent run while a worker carries it: every append is made on the version the
 * worker last saw (optimistic concurrency: a second carrier of the same run fails instead of interleaving)
 * and carries a command id derived from the run and a step label, so a retried append deduplicates.
 */
export class RunWriter {
  /** Parallel steps of one run append through this one writer: appends queue here, each on the version the last one left. */
  private tail: Promise<void> = Promise.resolve();

  private constructor(private readonly repo: RunRepository, private readonly links: RunLinks, private current: RunState, private version: number) {}

  static async open(repo: RunRepository, links: RunLinks): Promise<RunWriter> {
    const { state, version } = await repo.load(links.run_id);
    return new RunWriter(repo, links, state, version);
  }

  get state(): RunState {
    return this.current;
  }

  /** `events` may be decided from the run's state at the moment the append gets its turn (nothing: no append). */
  append(events: RunEvent[] | ((state: RunState) => RunEvent[]), label: string): Promise<void> {
    const next = this.tail.catch(() => undefined).then(async () => {
      const decided = typeof events === 'function' ? events(this.current) : events;
      if (decided.length === 0) return;
      await this.repo.append(this.links, decided, { expectedVersion: this.version, commandId: `${this.links.run_id}:${label}` });
      await this.load();
    });
    this.tail = next;
    return next;
  }

  /** Queued like appends, so a reload never lands between an append and the state it produced. */
  refresh(): Promise<void> {
    const next = this.tail.catch(() => undefined).then(() => this.load());
    this.tail = next;
    return next;
  }

  private async load(): Promise<void> {
    ({ state: this.current, version: this.version } = await this.repo.load(this.links.run_id));
  }
}
