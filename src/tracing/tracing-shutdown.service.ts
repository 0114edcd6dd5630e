import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { stopTracing } from './start-tracing.js';

/** Sends the last spans when the application shuts down (Nest awaits this before the process exits). */
@Injectable()
export class TracingShutdown implements OnApplicationShutdown {
  onApplicationShutdown(): Promise<void> {
    return stopTracing();
  }
}
