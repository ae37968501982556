import 'reflect-metadata';
import { DynamicModule, INestApplication } from '@nestjs/common';
import { HttpAdapterHost, NestFactory } from '@nestjs/core';
import { isBusFault } from '@runledger/event-log';
import { startTelemetry, stopTelemetry } from '@runledger/telemetry';
import { RunledgerExceptionFilter } from './exception-filter';
import { JsonLogger } from './logger';
import { createRuntime, ServiceRuntime } from './runtime';
import { RunledgerTransport } from './transport';
import type { NatsIdentity } from './nats-identity';
import { settingNumber, settingText } from '@runledger/kernel';

export interface ServiceHandle {
  app: INestApplication;
  runtime: ServiceRuntime;
  httpPort: number;
  stop(): Promise<void>;
}

/**
 * Starts one Runledger service: telemetry, NATS + log stream, the Nest app with its HTTP health endpoints
 * and the NATS/JetStream transport. `module` receives the runtime so providers can use the log and bus.
 */
export async function bootstrapService(service: string, module: (runtime: ServiceRuntime) => DynamicModule | Promise<DynamicModule>, opts: { httpPort?: number; natsUrl?: string; identity?: NatsIdentity; consumerIdentity?: NatsIdentity; consumerIdentityRequired?: boolean; rawLog?: boolean } = {}): Promise<ServiceHandle> {
  startTelemetry(service);
  const logger = new JsonLogger(service);
  const runtime = await createRuntime(service, { natsUrl: opts.natsUrl, identity: opts.identity, consumerIdentity: opts.consumerIdentity, consumerIdentityRequired: opts.consumerIdentityRequired, rawLog: opts.rawLog });
  // No body parser: the HTTP side is the health endpoints (GET, no body); a parser answered a malformed body with its own
  // error text ("Expected property name … in JSON"), which is no business of a health check.
  const app = await NestFactory.create(await module(runtime), { logger, abortOnError: false, bodyParser: false });
  app.useGlobalFilters(new RunledgerExceptionFilter(app.get(HttpAdapterHost).httpAdapter));
  const transport = new RunledgerTransport(runtime);
  app.connectMicroservice({ strategy: transport }, { inheritAppConfig: true });
  await app.startAllMicroservices();
  // Ready means served: the server has every subscription once it answers a flush (a client writes its SUBs when
  // it next writes, nats-write-patch: at the end of this turn), so a request sent on our `ready` line finds a responder.
  await runtime.nc.flush();
  await runtime.consumerNc?.flush();
  const port = opts.httpPort ?? settingNumber('HTTP_PORT');
  await app.listen(port, settingText('HTTP_HOST'));
  const address = app.getHttpServer().address();
  const httpPort = typeof address === 'object' && address ? address.port : port;
  // One stop, however often asked: every caller waits for it to end. Ctrl-C of `npm start` signals the whole process
  // group (SIGINT here) and start.js then sends SIGTERM: that second signal resolved at once and exited the process
  // half-way through the first stop, before the providers' shutdown hooks (the audit anchor's last write) ran.
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= (async () => {
    // Finish what this instance took before anything closes under it (README "Configuration": RL_SHUTDOWN_DRAIN_MS).
    await transport.quiesce(settingNumber('RL_SHUTDOWN_DRAIN_MS')).catch(() => undefined);
    await app.close().catch(() => undefined);
    await runtime.consumerNc?.drain().catch(() => undefined);
    await runtime.nc.drain().catch(() => undefined);
    await stopTelemetry();
  })());
  return { app, runtime, httpPort, stop };
}

/** `main.ts` of every service: start, print one `ready` line, stop cleanly on SIGTERM/SIGINT. */
export function runServiceMain(service: string, module: (runtime: ServiceRuntime) => DynamicModule | Promise<DynamicModule>, opts: { rawLog?: boolean; consumerIdentityRequired?: boolean } = {}): void {
  bootstrapService(service, module, opts)
    .then((handle) => {
      process.stdout.write(JSON.stringify({ level: 'log', service, msg: `${service} ready`, http_port: handle.httpPort, nats: handle.runtime.nc.getServer() }) + '\n');
      survivesBusTimeouts(service);
      const shutdown = () => void handle.stop().finally(() => process.exit(0));
      process.once('SIGTERM', shutdown);
      process.once('SIGINT', shutdown);
    })
    .catch((err) => {
      process.stderr.write(JSON.stringify({ level: 'error', service, msg: 'failed to start', error: (err as Error).message }) + '\n');
      process.exit(3);
    });
}

/**
 * A NATS fault nobody awaited (an operation the client abandoned while nats-server restarted: a timeout, a closed
 * connection, no responders) is a transient bus fault: every effect and decision is in the log, so the service logs it and lives on rather than crashing into a
 * restart. Any other unhandled rejection is a defect: logged with its stack, and the process exits (supervisors
 * restart it; the log resumes it) instead of running on in an unknown state.
 */
function survivesBusTimeouts(service: string): void {
  process.on('unhandledRejection', (reason: unknown) => {
    const err = reason as Error | undefined;
    if (err && isBusFault(err)) {
      process.stderr.write(JSON.stringify({ level: 'warn', service, msg: 'unawaited NATS fault (bus fault): continuing', error: err.message, name: err.name }) + '\n');
      return;
    }
    process.stderr.write(JSON.stringify({ level: 'error', service, msg: 'unhandled rejection', error: err?.message ?? String(reason), stack: err?.stack }) + '\n');
    process.exit(1);
  });
}
