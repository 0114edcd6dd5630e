import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long a stretch of synchronous file-system calls may hold the event loop. */
const SLICE_MS = 8;

/**
 * Lets the event loop run between slices of synchronous work. A source tree is thousands of
 * small files, and an asynchronous file-system call costs a thread-pool round trip several times
 * the call itself on the bench machine; synchronous calls in slices of at most SLICE_MS keep the
 * speed and let the server's other requests wait at most one slice.
 */
export class TimeSlices {
  private started = performance.now();

  /** Yields to the event loop once the current slice is used up; within it, answers undefined (nothing to await). */
  yieldIfDue(): Promise<void> | undefined {
    if (performance.now() - this.started <= SLICE_MS) return undefined;
    return this.nextSlice();
  }

  private async nextSlice(): Promise<void> {
    await nextTurn();
    this.started = performance.now();
  }
}
