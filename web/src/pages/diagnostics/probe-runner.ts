/**
 * Probes the page asked for: at most one in flight per connection (a second press while it runs
 * is ignored, as the server would share the answer anyway), and "Probe all" at most `parallel`
 * at a time so a page with forty connections does not open forty requests at once.
 */
export type ProbeState<T> = { state: 'running' } | { state: 'done'; answer: T } | { state: 'failed'; error: unknown };

export class ProbeRunner<T> {
  private readonly states = new Map<string, ProbeState<T>>();

  constructor(
    private readonly probe: (name: string) => Promise<T>,
    private readonly changed: (states: ReadonlyMap<string, ProbeState<T>>) => void,
  ) {}

  get(name: string): ProbeState<T> | undefined {
    return this.states.get(name);
  }

  isRunning(name: string): boolean {
    return this.states.get(name)?.state === 'running';
  }

  /** Resolves once the probe settled (never rejects: a failure is a state). */
  async run(name: string): Promise<void> {
    if (this.isRunning(name)) return;
    this.set(name, { state: 'running' });
    try {
      this.set(name, { state: 'done', answer: await this.probe(name) });
    } catch (error) {
      this.set(name, { state: 'failed', error });
    }
  }

  async runAll(names: readonly string[], parallel = 4): Promise<void> {
    const queue = names.filter((n) => !this.isRunning(n));
    const worker = async () => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) await this.run(name);
    };
    await Promise.all(Array.from({ length: Math.min(parallel, queue.length) }, worker));
  }

  private set(name: string, state: ProbeState<T>) {
    this.states.set(name, state);
    this.changed(new Map(this.states));
  }
}
