import type { CapacityConfig, ProjectConfig, SandboxConfig } from '../../config/service-config.js';

/** What a run asks of the capacity: cores and bytes. */
export interface Footprint {
  cpu: number;
  memory: number;
}

export const NO_FOOTPRINT: Footprint = { cpu: 0, memory: 0 };

/** Sandboxes a run of the project needs: one per declared repository, at least one. */
export function sandboxCount(project: ProjectConfig | null | undefined): number {
  return Math.max(1, project?.repos.length ?? 0);
}

/** The sum of the run's sandboxes' requests: N × (`sandbox.cpu`, `sandbox.memory`). */
export function footprintOf(sandboxes: number, sandbox: Pick<SandboxConfig, 'cpu' | 'memory'>): Footprint {
  const n = Math.max(1, sandboxes);
  return { cpu: n * sandbox.cpu, memory: n * sandbox.memory };
}

export function add(a: Footprint, b: Footprint): Footprint {
  return { cpu: a.cpu + b.cpu, memory: a.memory + b.memory };
}

/** True when `footprint` fits beside `used`; no capacity block means unbounded. */
export function fits(used: Footprint, footprint: Footprint, capacity: CapacityConfig | null): boolean {
  if (capacity === null) return true;
  const total = add(used, footprint);
  return total.cpu <= capacity.cpu + 1e-9 && total.memory <= capacity.memory;
}

/** True when the footprint could never fit, even on an idle installation. */
export function exceedsCapacity(footprint: Footprint, capacity: CapacityConfig | null): boolean {
  return !fits(NO_FOOTPRINT, footprint, capacity);
}
