import { fileURLToPath } from 'node:url';

/** The package root: `src/..` in tests, `dist/..` when built. */
export const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));
