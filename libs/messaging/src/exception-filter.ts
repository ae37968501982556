import { ArgumentsHost, Catch } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { throwError } from 'rxjs';

/**
 * Nest's default RPC filter turns every non-RpcException into "Internal server error" and loses the
 * stable code. On the NATS side we hand the error back untouched; the transport maps it to a wire
 * error (known codes pass, anything else becomes INTERNAL, logged but never echoed).
 */
@Catch()
export class RunledgerExceptionFilter extends BaseExceptionFilter {
  override catch(exception: unknown, host: ArgumentsHost) {
    if (host.getType() === 'rpc') return throwError(() => exception);
    return super.catch(exception, host);
  }
}
