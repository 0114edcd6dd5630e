import { posix } from 'node:path';
import type { AgentTree } from '../agent-types.js';

/** A path the model gave, routed to its tree: `relative` is clean (`.` for the tree's root, never absolute, never `..`). */
export interface TreePath {
  tree: AgentTree;
  relative: string;
  /** The path as the model should see it (with the repository prefix in a multi-repository run). */
  shown: string;
}

/**
 * The working trees of a run. With one tree, paths are relative to it. With several (a
 * multi-repository run) the first segment names the repository (`api/src/x.ts`) and each tree
 * must carry a distinct prefix. These checks are lexical; whether the path's real location (links
 * followed) stays inside the tree is checked in the sandbox (see confine.ts).
 */
export class AgentTrees {
  readonly multi: boolean;
  readonly prefixes: readonly string[];
  private readonly byPrefix = new Map<string, AgentTree>();

  constructor(readonly all: readonly AgentTree[]) {
    if (all.length === 0) throw new Error('an agent needs at least one working tree');
    this.multi = all.length > 1;
    if (this.multi) {
      for (const tree of all) {
        if (!tree.prefix || tree.prefix.includes('/') || tree.prefix === '.' || tree.prefix === '..') {
          throw new Error(`in a multi-repository run every tree needs a plain repository name as prefix (got ${JSON.stringify(tree.prefix)})`);
        }
        if (this.byPrefix.has(tree.prefix)) throw new Error(`two trees share the prefix ${tree.prefix}`);
        this.byPrefix.set(tree.prefix, tree);
      }
    }
    this.prefixes = this.multi ? all.map((tree) => tree.prefix as string) : [];
  }

  /** The tree a `repo` parameter names (multi-repository runs), or the only tree. */
  tree(repo: string | undefined): AgentTree | { error: string } {
    if (!this.multi) return this.all[0]!;
    if (repo === undefined) return { error: `name the repository: one of ${this.prefixes.join(', ')}` };
    return this.byPrefix.get(repo) ?? { error: `no repository ${repo}: one of ${this.prefixes.join(', ')}` };
  }

  /** Routes a path, refusing absolute paths and `..` escapes. `allowRoot`: the tree itself (`.`, or `api` alone) is acceptable. */
  resolve(path: string, allowRoot = false): TreePath | { error: string } {
    if (path.includes('\0')) return { error: 'the path contains a NUL character' };
    if (path.startsWith('/') || path.startsWith('~') || /^[A-Za-z]:[\\/]/.test(path)) {
      return { error: `${path} is absolute: give a path relative to the ${this.multi ? 'repositories' : 'working tree'}` };
    }
    const normal = posix.normalize(path === '' ? '.' : path).replace(/\/+$/, '') || '.';
    if (normal === '..' || normal.startsWith('../')) return { error: `${path} leaves the working tree` };
    let tree = this.all[0]!;
    let relative = normal;
    if (this.multi) {
      const slash = normal.indexOf('/');
      const head = slash === -1 ? normal : normal.slice(0, slash);
      const found = this.byPrefix.get(head);
      if (!found) return { error: `${path} names no repository: paths start with one of ${this.prefixes.join(', ')}` };
      tree = found;
      relative = slash === -1 ? '.' : normal.slice(slash + 1);
    }
    if (relative === '.' && !allowRoot) return { error: `${path} is a directory, not a file` };
    return { tree, relative, shown: this.show(tree, relative) };
  }

  /** A tree-relative path as the model sees it. */
  show(tree: AgentTree, relative: string): string {
    if (!this.multi) return relative;
    return relative === '.' ? (tree.prefix as string) : `${tree.prefix}/${relative}`;
  }
}
