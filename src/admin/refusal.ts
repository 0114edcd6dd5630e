import { ConflictException, type HttpException, NotFoundException, UnprocessableEntityException } from '@nestjs/common';
import type { AccessRefusal } from '../access/access-change.js';

/** 422 for what a save may never hold, 409 for what the current state forbids, 404 for nothing to act on. */
export function refusalOf(r: AccessRefusal): HttpException {
  const body = { error: r.error, code: r.code, ...r.details };
  switch (r.reason) {
    case 'invalid': return new UnprocessableEntityException(body);
    case 'conflict': return new ConflictException(body);
    case 'not-found': return new NotFoundException(body);
  }
}
