import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Injectable } from '@nestjs/common';

/**
 * Who this process is in the store: `<host>:<pid>:<random>`. Leader leases, heartbeats and the
 * consumer's liveness key carry it, so an operator (or a test) can tell which replica holds what.
 */
@Injectable()
export class InstanceIdentity {
  readonly id = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}
