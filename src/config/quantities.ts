/** Kubernetes-style quantities, since operators write capacity the way their clusters do. */
const MEMORY_UNITS: Record<string, number> = {
  '': 1, k: 1e3, K: 1e3, M: 1e6, G: 1e9, T: 1e12,
  Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4,
};

/** What parseCpu and parseMemory accept as a string (the schema's patterns too). */
export const CPU_QUANTITY = /^\s*(\d+(?:\.\d+)?)\s*(m?)\s*$/;
export const MEMORY_QUANTITY = /^\s*(\d+(?:\.\d+)?)\s*(Ki|Mi|Gi|Ti|k|K|M|G|T|)\s*$/;

/** "16Gi" → bytes; a bare number is bytes. null when unparseable. */
export function parseMemory(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? value : null;
  if (typeof value !== 'string') return null;
  const match = MEMORY_QUANTITY.exec(value);
  if (!match) return null;
  const unit = MEMORY_UNITS[match[2]];
  if (unit === undefined) return null;
  const bytes = Math.round(Number(match[1]) * unit);
  return bytes > 0 ? bytes : null;
}

/** "500m" → 0.5 cores; a bare number is cores. null when unparseable. */
export function parseCpu(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? value : null;
  if (typeof value !== 'string') return null;
  const match = CPU_QUANTITY.exec(value);
  if (!match) return null;
  const cores = Number(match[1]) / (match[2] === 'm' ? 1000 : 1);
  return cores > 0 ? cores : null;
}
