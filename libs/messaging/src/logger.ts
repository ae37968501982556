import { LoggerService } from '@nestjs/common';
import { currentTraceId } from '@runledger/telemetry';
import { settingText } from '@runledger/kernel';

const LEVELS = ['error', 'warn', 'log', 'debug', 'verbose'] as const;
type Level = (typeof LEVELS)[number];

/** Structured JSON logs, one line each, carrying the active trace id. */
export class JsonLogger implements LoggerService {
  private readonly max: number;
  constructor(private readonly service: string, level = settingText('LOG_LEVEL')) {
    const idx = LEVELS.indexOf(level as Level);
    this.max = idx === -1 ? 2 : idx;
  }
  private write(level: Level, message: unknown, rest: unknown[]): void {
    if (LEVELS.indexOf(level) > this.max) return;
    const fields = rest.find((r) => typeof r === 'object' && r !== null) as Record<string, unknown> | undefined;
    const contextName = rest.find((r) => typeof r === 'string');
    // `logger.warn({ msg, run_id, … })`: the fields go to the top level, where log tooling indexes them.
    const structured = typeof message === 'object' && message !== null && !(message instanceof Error) ? (message as Record<string, unknown>) : undefined;
    const line = {
      ts: new Date().toISOString(),
      level,
      service: this.service,
      ...(contextName ? { context: contextName } : {}),
      ...(structured ?? { msg: message instanceof Error ? message.message : message }),
      ...(currentTraceId() ? { trace_id: currentTraceId() } : {}),
      ...fields,
    };
    (level === 'error' || level === 'warn' ? process.stderr : process.stdout).write(JSON.stringify(line) + '\n');
  }
  log(message: unknown, ...rest: unknown[]) { this.write('log', message, rest); }
  error(message: unknown, ...rest: unknown[]) { this.write('error', message, rest); }
  warn(message: unknown, ...rest: unknown[]) { this.write('warn', message, rest); }
  debug(message: unknown, ...rest: unknown[]) { this.write('debug', message, rest); }
  verbose(message: unknown, ...rest: unknown[]) { this.write('verbose', message, rest); }
}
