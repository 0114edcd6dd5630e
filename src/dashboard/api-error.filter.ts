import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { ErrorBody } from '../common/error-body.js';
import { isDatabaseFault } from '../database/database-fault.js';
import { StoreUnavailableError } from '../store/lock.service.js';

/**
 * Every refusal of the dashboard API is `{error}` (contract "Runs API details"), whatever threw
 * it: Nest's own exceptions become `{error: message}` (a body that already is `{error, …}`, such as
 * the guard's 403, passes as it is), and the store or the database being away is a 503 "try
 * again", never a 500: the database not ready, StoreUnavailableError, a database error that is
 * the database's fault, or a connection that broke with no answer at all.
 */
@Catch()
export class ApiErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('Api');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const [status, body] = this.answer(exception);
    void reply.status(status).send(body);
  }

  private answer(exception: unknown): [number, ErrorBody] {
    if (exception instanceof HttpException) {
      const response = exception.getResponse();
      if (typeof response === 'object' && response !== null && typeof (response as Partial<ErrorBody>).error === 'string'
        && !('statusCode' in response)) {
        return [exception.getStatus(), response as ErrorBody];
      }
      return [exception.getStatus(), { error: exception.message }];
    }
    if (exception instanceof StoreUnavailableError) {
      return [HttpStatus.SERVICE_UNAVAILABLE, { error: `${exception.message}: try again once the store is back` }];
    }
    if (isDatabaseFault(exception) === true || isConnectionFailure(exception)) {
      return [HttpStatus.SERVICE_UNAVAILABLE, { error: `database unavailable: ${(exception as Error).message}` }];
    }
    this.logger.error(exception instanceof Error ? exception.stack ?? exception.message : String(exception));
    return [HttpStatus.INTERNAL_SERVER_ERROR, { error: 'internal error; the server log has the details' }];
  }
}

/** Node's socket errors (`ECONNREFUSED`, `ECONNRESET`, …) and pg's own words for a lost or unobtainable connection. */
function isConnectionFailure(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (typeof code === 'string' && /^E[A-Z]{3,}$/.test(code))
    || (typeof message === 'string' && /connection terminated|timeout exceeded when trying to connect|Connection ended/i.test(message));
}
