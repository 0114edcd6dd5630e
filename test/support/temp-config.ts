import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';

export interface TempConfig {
  dir: string;
  /** Path of the written `service.yml`. */
  path: string;
  /** Rewrites the file (e.g. for a second boot with a changed file). */
  write(config: Record<string, unknown>): void;
  remove(): void;
}

/** A temporary folder holding a `service.yml` (and room for an embedded database). */
export function tempConfig(label: string, config: Record<string, unknown>): TempConfig {
  const dir = mkdtempSync(join(tmpdir(), `${label}-`));
  const path = join(dir, 'service.yml');
  const write = (next: Record<string, unknown>) => writeFileSync(path, stringify(next));
  write(config);
  return { dir, path, write, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
