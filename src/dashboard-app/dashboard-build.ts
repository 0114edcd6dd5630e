import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../paths.js';

/** Where `npm run build` puts the dashboard (Vite's output): `index.html`, `assets/`, `build.json`. */
export const DASHBOARD_DIR = join(PACKAGE_ROOT, 'dist', 'web');

/** The header every dashboard API call carries, and the server's answer carries back. */
export const DASHBOARD_BUILD_HEADER = 'x-dashboard-build';

export interface DashboardBundle {
  /** Null when the app was not built (`npm run build` builds it); the API still serves. */
  dir: string | null;
  /** The build id the app was stamped with, or the package's own when there is no app. */
  build: string;
}

/**
 * Reads the app's build stamp once at boot. The id is written by the app's build
 * (`web/vite.config.ts`) into `build.json` and compiled into the app, so a tab can tell that
 * the server now serves another build.
 */
export function readDashboardBundle(dir = DASHBOARD_DIR): DashboardBundle {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) return { dir: null, build: packageBuild() };
  try {
    const stamp = JSON.parse(readFileSync(join(dir, 'build.json'), 'utf8')) as { build?: unknown };
    if (typeof stamp.build === 'string' && stamp.build !== '') return { dir, build: stamp.build };
  } catch {
    // An app built without its stamp still serves; its id is then the page's own hash.
  }
  return { dir, build: createHash('sha256').update(readFileSync(index)).digest('hex').slice(0, 12) };
}

function packageBuild(): string {
  const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };
  return `server-${pkg.version}`;
}
