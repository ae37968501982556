import { Controller, DynamicModule, Get, Global, HttpException, Inject, Module } from '@nestjs/common';
import { EventLog } from '@runledger/event-log';
import { Bus } from './bus';
import { ServiceRuntime } from './runtime';

export const RUNTIME = Symbol('RUNTIME');
export const CLOCK = Symbol('CLOCK');
/** The process's data keys (CachedDataKeys): to open sealed values a read model copied from events. */
export const DATA_KEYS = Symbol('DATA_KEYS');

@Controller('health')
class HealthController {
  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  @Get('live')
  live() {
    return { service: this.runtime.service, status: 'ok' };
  }

  /**
   * Ready only while the NATS connection is up: a service that cannot reach the bus must not get traffic. A service
   * with parts refused at start (an invalid agent profile) still serves the rest: ready, and it names them.
   */
  @Get('ready')
  ready() {
    if (!this.runtime.isConnected()) throw new HttpException({ service: this.runtime.service, status: 'not_ready', nats: 'disconnected' }, 503);
    const problems = this.runtime.health.problems;
    return { service: this.runtime.service, status: 'ready', nats: 'connected', server: this.runtime.nc.info?.server_id, ...(problems.length ? { degraded: true, problems } : {}) };
  }
}

/** Makes the process runtime injectable: the log, the bus client and the clock. */
@Global()
@Module({})
export class MessagingModule {
  static forRuntime(runtime: ServiceRuntime): DynamicModule {
    return {
      module: MessagingModule,
      controllers: [HealthController],
      providers: [
        { provide: RUNTIME, useValue: runtime },
        { provide: EventLog, useValue: runtime.log },
        { provide: Bus, useValue: runtime.bus },
        { provide: CLOCK, useValue: runtime.clock },
        { provide: DATA_KEYS, useValue: runtime.dataKeys },
      ],
      exports: [RUNTIME, EventLog, Bus, CLOCK, DATA_KEYS],
    };
  }
}
