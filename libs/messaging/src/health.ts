/**
 * What a service reports about itself beyond its connection: parts of it that are refused and do not serve (an invalid
 * agent profile, say), by component. A service with problems still serves everything else: it is `degraded`, not down,
 * and says what is missing on rl.health.{service} and GET /health/ready.
 */
export class ServiceHealth {
  private readonly byComponent = new Map<string, readonly string[]>();

  /** Replaces what `component` reports; no problems: that component is healthy (again). */
  report(component: string, problems: readonly string[]): void {
    if (problems.length) this.byComponent.set(component, [...problems]);
    else this.byComponent.delete(component);
  }

  /** Every reported problem, prefixed with its component. */
  get problems(): string[] {
    return [...this.byComponent].flatMap(([component, problems]) => problems.map((p) => `${component}: ${p}`));
  }

  /** The health a service answers: down without its connection, degraded with problems, else ok. */
  summary(connected: boolean): { status: 'ok' | 'degraded' | 'down'; problems?: string[] } {
    if (!connected) return { status: 'down' };
    const problems = this.problems;
    return problems.length ? { status: 'degraded', problems } : { status: 'ok' };
  }
}
