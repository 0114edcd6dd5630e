import { DEFAULT_AUTH_CLAIMS, defaultServiceConfig } from './service-config.js';

/**
 * The built-in defaults in the bootstrap file's own shape: what each key holds when neither the
 * file, a stored setting nor the environment sets it. Maps whose keys the operator names
 * (projects, pipelines, secrets) have no defaults and are left out.
 */
export function defaultDocument(withAuth: boolean): Record<string, unknown> {
  const d = defaultServiceConfig();
  return {
    ...(withAuth ? { auth: { enforce: false, ...DEFAULT_AUTH_CLAIMS } } : {}),
    webhooks: d.webhooks,
    queue: d.queue,
    capacity: d.capacity,
    sandbox: { ...d.sandbox, memory: bytesAsQuantity(d.sandbox.memory) },
    observation_retention_days: d.observation_retention_days,
    metrics: d.metrics,
    runs: d.runs,
    git: d.git,
    agent: d.agent,
    security_scan: d.security_scan,
  };
}

/** 2147483648 → `2Gi`, as the file would say it (bytes when no binary unit divides it). */
export function bytesAsQuantity(bytes: number): string | number {
  for (const [unit, size] of [['Ti', 1024 ** 4], ['Gi', 1024 ** 3], ['Mi', 1024 ** 2], ['Ki', 1024]] as const) {
    if (bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return bytes;
}
