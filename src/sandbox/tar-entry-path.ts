import { posix } from 'node:path';

/**
 * The path a tar entry names, relative to the directory it unpacks into (`''` for that directory
 * itself), or an Error naming the entry when it would land outside: an absolute path, or `..`
 * segments that climb above the top. `a/../b` is accepted: it stays inside and means `b`.
 */
export function entryPath(name: string): string {
  if (name.startsWith('/')) throw new Error(`tar entry "${name}" is refused: its path is absolute`);
  const normal = posix.normalize(name).replace(/\/+$/, '');
  if (normal === '..' || normal.startsWith('../')) {
    throw new Error(`tar entry "${name}" is refused: its path climbs out of the directory with ".."`);
  }
  return normal === '.' ? '' : normal;
}

/** The directory holding `path` (a result of `entryPath`), `''` at the top. */
export function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}
