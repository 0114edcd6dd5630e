import { parentOf } from './tar-entry-path.js';

/** Files whose writing may still be finishing while the unpack reads on: enough to keep the disk busy. */
const MAX_PENDING = 16;

/**
 * The files of an unpack that are still being written and closed while later entries are read, so
 * the unpack is not one disk round trip after another (a 5,000-file tree would take seconds). An
 * entry waits for pending writes it depends on, at its own path or above it, and the first failure
 * is kept to be thrown by the unpack, which waits for them all before it ends.
 */
export class PendingFileWrites {
  private readonly pending = new Map<string, Promise<void>>();
  private firstFailure: Error | null = null;

  /**
   * Waits for the pending writes an entry at `path` depends on, and for room for one more; nothing
   * to wait for (every small file written synchronously) answers undefined, not a promise to await.
   */
  before(path: string): Promise<void> | undefined {
    return this.pending.size === 0 ? undefined : this.waitBefore(path);
  }

  private async waitBefore(path: string): Promise<void> {
    for (let at = path; at !== ''; at = parentOf(at)) await this.pending.get(at);
    while (this.pending.size >= MAX_PENDING) await this.pending.values().next().value;
  }

  /** Keeps `finishing` (the rest of writing `path`) pending; `describe` turns its failure into the unpack's error. */
  add(path: string, finishing: Promise<void>, describe: (error: unknown) => Error): void {
    const settled: Promise<void> = finishing
      .catch((error: unknown) => {
        this.firstFailure ??= describe(error);
      })
      .finally(() => {
        if (this.pending.get(path) === settled) this.pending.delete(path);
      });
    this.pending.set(path, settled);
  }

  throwIfFailed(): void {
    if (this.firstFailure) throw this.firstFailure;
  }

  get failure(): Error | null {
    return this.firstFailure;
  }

  /** Waits until nothing is pending (failures are kept, not thrown). */
  async settle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending.values());
  }
}
