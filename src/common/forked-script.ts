import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_ROOT } from '../paths.js';

/**
 * The file to fork for a child process's script `<name>.process`, which lives in `src/<folder>/`
 * beside the module at `moduleUrl`: the compiled `.js` beside that module (tsc's output), else the
 * build's copy under `dist/<folder>/` (the bundle's chunks are not beside it), else the `.ts`
 * source (run from source, Node strips the types).
 */
export function forkedScript(moduleUrl: string, folder: string, name: string): string {
  if (moduleUrl.endsWith('.js')) {
    const sibling = fileURLToPath(new URL(`./${name}.process.js`, moduleUrl));
    if (existsSync(sibling)) return sibling;
    const built = join(PACKAGE_ROOT, 'dist', folder, `${name}.process.js`);
    if (existsSync(built)) return built;
  }
  return fileURLToPath(new URL(`./${name}.process.ts`, moduleUrl));
}
