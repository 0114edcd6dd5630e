import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Issue 28: arrows run one way. The graph is the static imports between the files of src/ (specs
 * left out) that load a module when their file loads: `import`, `export … from`, and a bare
 * `import '…'`. Type-only imports (`import type`, or every name marked `type`) are left out,
 * because the compiler erases them and they cannot order two modules' loading; a dynamic
 * `import()` is left out too, because it runs when called, after both files have loaded (the
 * lazy sandbox backends rely on that). An import used only as a type but not marked so counts:
 * the check errs on the side of an edge, and marking it `type` is the fix.
 */
const SRC = join(import.meta.dirname, '../../src');

type Graph = Map<string, string[]>;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/** The relative specifiers a file loads at run time. */
function runtimeImports(text: string): string[] {
  const file = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.isTypeOnly) continue;
      const bindings = clause?.namedBindings;
      const allTypes = clause !== undefined && clause.name === undefined && bindings !== undefined
        && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
      if (!allTypes && ts.isStringLiteral(statement.moduleSpecifier)) out.push(statement.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)) {
      if (statement.isTypeOnly) continue;
      const clause = statement.exportClause;
      if (clause && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly)) continue;
      out.push(statement.moduleSpecifier.text);
    }
  }
  return out.filter((specifier) => specifier.startsWith('.'));
}

/** `./x.js` from `dir` → the source file it names, relative to src/ (null when it is not a .ts of src/). */
function resolveSpecifier(dir: string, specifier: string): string | null {
  const base = resolve(dir, specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')];
  const found = candidates.find((path) => existsSync(path) && statSync(path).isFile());
  return found ? relative(SRC, found).split('\\').join('/') : null;
}

function buildGraph(): Graph {
  const graph: Graph = new Map();
  for (const path of sources(SRC)) {
    const from = relative(SRC, path).split('\\').join('/');
    const to = runtimeImports(readFileSync(path, 'utf8'))
      .map((specifier) => resolveSpecifier(dirname(path), specifier))
      .filter((file): file is string => file !== null);
    graph.set(from, [...new Set(to)]);
  }
  return graph;
}

/** Every strongly connected group of more than one file (or a file importing itself), each as one cycle through it. */
function cyclesOf(graph: Graph): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const connect = (node: string): void => {
    indices.set(node, index);
    low.set(node, index);
    index++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, indices.get(next)!));
      }
    }
    if (low.get(node) === indices.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1 || (graph.get(node) ?? []).includes(node)) groups.push(group);
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) connect(node);
  return groups.map((group) => cycleWithin(graph, new Set(group)));
}

/** One cycle inside a strongly connected group: the shortest way from its first file back to it. */
function cycleWithin(graph: Graph, group: Set<string>): string[] {
  const start = [...group].sort()[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!group.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

/**
 * Folders of src/ that import each other (a file of each loads a file of the other): no file
 * cycle, but the arrows between the two modules run both ways. Those there are when this test was
 * written are listed (`a ⇄ b`, names in order); the list may only shrink. The configuration reads
 * the two registries (`sandbox/sandbox-backends.ts`, `pipelines/built-in-pipelines.ts`), which is
 * the rule of issue 28 at work: their files import nothing of the configuration at load.
 */
const TWO_WAY_LEFT = new Set([
  'access ⇄ auth', 'access ⇄ changes', 'agent ⇄ config', 'auth ⇄ findings', 'changes ⇄ secrets', 'changes ⇄ settings',
  'commands ⇄ webhooks', 'config ⇄ findings', 'config ⇄ pipelines', 'config ⇄ sandbox', 'config ⇄ settings',
  'conversations ⇄ pipelines', 'conversations ⇄ runs', 'dashboard ⇄ pipelines', 'metrics ⇄ runs', 'metrics ⇄ tickets',
  'pipelines ⇄ workspaces', 'runs ⇄ tickets', 'runs ⇄ workspaces', 'secrets ⇄ stored-config', 'settings ⇄ stored-config',
]);

/** `a ⇄ b` → the file imports behind it, both ways (a few of each). */
function twoWayFolders(graph: Graph): Map<string, string[]> {
  const folderOf = (file: string) => (file.includes('/') ? file.slice(0, file.indexOf('/')) : null);
  const edges = new Map<string, string[]>();
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const a = folderOf(from);
      const b = folderOf(to);
      if (a === null || b === null || a === b) continue;
      edges.set(`${a}→${b}`, [...(edges.get(`${a}→${b}`) ?? []), `${from} → ${to}`]);
    }
  }
  const out = new Map<string, string[]>();
  for (const [key, files] of edges) {
    const [a, b] = key.split('→') as [string, string];
    const back = edges.get(`${b}→${a}`);
    if (a < b && back) out.set(`${a} ⇄ ${b}`, [...files.slice(0, 2), ...back.slice(0, 2)]);
  }
  return out;
}

describe('the import graph of src/', () => {
  const graph = buildGraph();

  it('has no cycle', () => {
    expect(cyclesOf(graph).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it('no two folders newly import each other; the list of those that do only shrinks', () => {
    const found = twoWayFolders(graph);
    expect([...found].filter(([pair]) => !TWO_WAY_LEFT.has(pair)).map(([pair, files]) => `${pair}: ${files.join('; ')}`)).toEqual([]);
    expect([...TWO_WAY_LEFT].filter((pair) => !found.has(pair))).toEqual([]);
  });

  it('src/agent/ imports nothing from src/platforms/', () => {
    const crossing = [...graph].filter(([from]) => from.startsWith('agent/'))
      .flatMap(([from, to]) => to.filter((file) => file.startsWith('platforms/')).map((file) => `${from} → ${file}`));
    expect(crossing).toEqual([]);
  });

  it('sees the imports of the code (an empty graph cannot pass)', () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.get('start-server.ts')?.length).toBeGreaterThan(0);
    expect(runtimeImports("import type { A } from './a.js';\nimport { type B } from './b.js';\nimport { C } from './c.js';\nexport * from './d.js';\nconst e = () => import('./e.js');"))
      .toEqual(['./c.js', './d.js']);
  });

  it('finds a cycle where there is one (the check can fail)', () => {
    const synthetic: Graph = new Map([['a.ts', ['b.ts']], ['b.ts', ['c.ts']], ['c.ts', ['a.ts', 'd.ts']], ['d.ts', []], ['e.ts', ['e.ts']]]);
    const cycles = cyclesOf(synthetic).map((cycle) => cycle.join(' → ')).sort();
    expect(cycles).toEqual(['a.ts → b.ts → c.ts → a.ts', 'e.ts → e.ts']);
    expect(cyclesOf(new Map([['a.ts', ['b.ts']], ['b.ts', []]]))).toEqual([]);
    expect([...twoWayFolders(new Map([['x/a.ts', ['y/b.ts']], ['y/b.ts', ['x/c.ts']], ['x/c.ts', []]])).keys()]).toEqual(['x ⇄ y']);
  });
});
