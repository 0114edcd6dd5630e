import { stringify } from 'yaml';
import type { TreeFacts } from './tree-facts.js';

/** The commands and image of one toolchain found in a tree. */
interface Toolchain {
  name: string;
  /** The files it was recognised by (as found). */
  evidence: string[];
  image: string;
  setup: string[];
  build: string[];
  test: string[];
}

/** A derived context: the two files' text, and what they were derived from. */
export interface ContextTemplate {
  contextYaml: string;
  principles: string;
  /** Files the commands and description were taken from (empty when nothing was recognised). */
  derivedFrom: string[];
  /** Toolchains recognised (`node`, `go`, …). */
  toolchains: string[];
}

/** npm's placeholder test script: not a test. */
const NPM_PLACEHOLDER_TEST = /no test specified/;

function nodeToolchain(facts: TreeFacts, has: (f: string) => boolean): Toolchain | null {
  if (!has('package.json')) return null;
  let scripts: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(facts.texts['package.json'] ?? '{}') as { scripts?: unknown };
    if (parsed.scripts && typeof parsed.scripts === 'object') scripts = parsed.scripts as Record<string, unknown>;
  } catch {
    // An unparsable package.json still says Node: the commands fall back to the defaults.
  }
  const script = (name: string) => typeof scripts[name] === 'string' && (name !== 'test' || !NPM_PLACEHOLDER_TEST.test(scripts[name] as string));
  const evidence = ['package.json'];
  let tool: { install: string; run: (s: string) => string; test: string };
  if (has('pnpm-lock.yaml')) {
    evidence.push('pnpm-lock.yaml');
    tool = { install: 'corepack enable && pnpm install --frozen-lockfile', run: (s) => `pnpm run ${s}`, test: 'pnpm test' };
  } else if (has('yarn.lock')) {
    evidence.push('yarn.lock');
    tool = { install: 'corepack enable && yarn install --frozen-lockfile', run: (s) => `yarn run ${s}`, test: 'yarn test' };
  } else {
    const lock = ['package-lock.json', 'npm-shrinkwrap.json'].find(has);
    if (lock) evidence.push(lock);
    tool = { install: lock ? 'npm ci' : 'npm install', run: (s) => `npm run ${s}`, test: 'npm test' };
  }
  return {
    name: 'node', evidence, image: 'node:24',
    setup: [tool.install], build: script('build') ? [tool.run('build')] : [], test: script('test') ? [tool.test] : [],
  };
}

function goToolchain(has: (f: string) => boolean): Toolchain | null {
  if (!has('go.mod')) return null;
  return { name: 'go', evidence: ['go.mod'], image: 'golang:1', setup: ['go mod download'], build: ['go build ./...'], test: ['go test ./...'] };
}

function rustToolchain(has: (f: string) => boolean): Toolchain | null {
  if (!has('Cargo.toml')) return null;
  const locked = has('Cargo.lock');
  return {
    name: 'rust', evidence: locked ? ['Cargo.toml', 'Cargo.lock'] : ['Cargo.toml'], image: 'rust:1',
    setup: [locked ? 'cargo fetch --locked' : 'cargo fetch'], build: ['cargo build'], test: ['cargo test'],
  };
}

function pythonToolchain(has: (f: string) => boolean): Toolchain | null {
  const evidence = ['pyproject.toml', 'requirements.txt', 'requirements-dev.txt', 'setup.py'].filter(has);
  if (evidence.length === 0) return null;
  const setup: string[] = [];
  if (has('requirements.txt')) setup.push('pip install -r requirements.txt');
  if (has('requirements-dev.txt')) setup.push('pip install -r requirements-dev.txt');
  if (has('pyproject.toml') || has('setup.py')) setup.push('pip install -e .');
  setup.push('pip install pytest');
  return { name: 'python', evidence, image: 'python:3.12', setup, build: [], test: ['pytest'] };
}

function mavenToolchain(has: (f: string) => boolean): Toolchain | null {
  if (!has('pom.xml')) return null;
  const mvn = has('mvnw') ? './mvnw' : 'mvn';
  return {
    name: 'maven', evidence: has('mvnw') ? ['pom.xml', 'mvnw'] : ['pom.xml'], image: 'maven:3-eclipse-temurin-21',
    setup: [], build: [`${mvn} -B package -DskipTests`], test: [`${mvn} -B test`],
  };
}

function gradleToolchain(has: (f: string) => boolean): Toolchain | null {
  const file = ['build.gradle', 'build.gradle.kts'].find(has);
  if (!file) return null;
  const gradle = has('gradlew') ? './gradlew' : 'gradle';
  return {
    name: 'gradle', evidence: has('gradlew') ? [file, 'gradlew'] : [file], image: 'gradle:8-jdk21',
    setup: [], build: [`${gradle} build -x test`], test: [`${gradle} test`],
  };
}

/** A Makefile: its targets stand in for the build and tests when no toolchain was recognised. */
function makeToolchain(has: (f: string) => boolean): Toolchain | null {
  const file = ['Makefile', 'makefile', 'GNUmakefile'].find(has);
  if (!file) return null;
  return { name: 'make', evidence: [file], image: '', setup: [], build: ['make'], test: ['make test'] };
}

/**
 * The README's first paragraph as one line (its first heading when it has no paragraph), else
 * null. Badges, images, HTML and link targets are left out.
 */
export function readmeDescription(text: string): string | null {
  let heading: string | null = null;
  let paragraph: string[] = [];
  let fenced = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith('```') || line.startsWith('~~~')) {
      fenced = !fenced;
      if (paragraph.length > 0) break;
      continue;
    }
    if (fenced) continue;
    if (/^(=+|-+)$/.test(line) && paragraph.length > 0) {
      // A setext heading: the lines above were its text, not a paragraph.
      heading ??= paragraph.join(' ');
      paragraph = [];
      continue;
    }
    if (line.length === 0 || /^(=+|-+|\*{3,})$/.test(line)) {
      if (paragraph.length > 0) break;
      continue;
    }
    const atx = /^#{1,6}\s+(.*?)\s*#*$/.exec(line);
    if (atx) {
      if (paragraph.length > 0) break;
      heading ??= atx[1] ?? null;
      continue;
    }
    if (/^(!\[|\[!\[|<|\|)/.test(line)) continue;
    paragraph.push(line);
  }
  const chosen = paragraph.length > 0 ? paragraph.join(' ') : heading;
  if (!chosen) return null;
  const plain = chosen
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*_]{1,3}([^`*_]+)[`*_]{1,3}/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
  if (plain.length === 0) return null;
  return plain.length > 300 ? `${plain.slice(0, 297).trimEnd()}…` : plain;
}

/**
 * A context template derived from a tree's files (no model involved): `context.yaml` with the
 * commands of each recognised toolchain (Node with npm, pnpm or yarn; Go; Rust; Python; Maven;
 * Gradle; a Makefile when nothing else), a public toolchain image when exactly one toolchain was
 * recognised, the README's first paragraph as the description; and a `principles.md` skeleton
 * saying what it was derived from and what the team should write there.
 */
export function deriveContextTemplate(facts: TreeFacts, options: { repo: string; name: string; path?: string }): ContextTemplate {
  const present = new Set(facts.files);
  const has = (f: string) => present.has(f);
  const found = [nodeToolchain(facts, has), goToolchain(has), rustToolchain(has), pythonToolchain(has), mavenToolchain(has), gradleToolchain(has)]
    .filter((t): t is Toolchain => t !== null);
  const make = makeToolchain(has);
  const toolchains = found.length > 0 ? found : make ? [make] : [];
  const readmeName = Object.keys(facts.texts).find((n) => n !== 'package.json');
  const fromReadme = readmeName ? readmeDescription(facts.texts[readmeName] ?? '') : null;
  const derivedFrom = [...toolchains.flatMap((t) => t.evidence), ...(fromReadme && readmeName ? [readmeName] : [])];
  const settings = {
    name: options.name,
    path: options.path ?? '.',
    description: fromReadme ?? `The ${options.repo} repository.`,
    image: toolchains.length === 1 ? toolchains[0]!.image : '',
    setup: toolchains.flatMap((t) => t.setup),
    build: toolchains.flatMap((t) => t.build),
    test: toolchains.flatMap((t) => t.test),
  };
  const header = [
    '# A pipeline-service context: what runs in this part of the repository need to know.',
    derivedFrom.length > 0
      ? `# Derived by project initialisation from ${derivedFrom.join(', ')}: check the commands before merging.`
      : '# Written by project initialisation; nothing in the tree named a toolchain: fill in the commands.',
    '# Keys: name, path (the part of the repository covered, . for all), description,',
    '# image (toolchain image for container sandboxes), setup, build and test (lists of shell commands).',
  ];
  const contextYaml = `${header.join('\n')}\n${stringify(settings, { lineWidth: 0 })}`;
  return { contextYaml, principles: principlesSkeleton(options.name, derivedFrom, toolchains.map((t) => t.name), facts, has), derivedFrom, toolchains: toolchains.map((t) => t.name) };
}

function principlesSkeleton(name: string, derivedFrom: string[], toolchains: string[], facts: TreeFacts, has: (f: string) => boolean): string {
  const source = derivedFrom.length > 0
    ? `derived from ${derivedFrom.map((f) => `\`${f}\``).join(', ')}${toolchains.length > 0 ? ` (toolchain: ${toolchains.join(', ')})` : ''}`
    : 'written without a recognised toolchain';
  const notes: string[] = [];
  if (has('Makefile') && !toolchains.includes('make')) notes.push('- The repository has a `Makefile`: say whether its targets, rather than the toolchain commands, are the way to build and test.');
  if (facts.directories.length > 0) notes.push(`- Top-level folders: ${facts.directories.slice(0, 20).map((d) => `\`${d}/\``).join(', ')}${facts.directories.length > 20 ? ', …' : ''}. Say what each is for and where new code goes.`);
  return [
    `# Principles of the \`${name}\` context`,
    '',
    `<!-- Written by pipeline-service project initialisation, ${source}. Replace the prompts below with your team's own words. -->`,
    '',
    'This file is handed to the model on every `code`, `security-scan` and `pr-review` run in this context.',
    'Write here what a new colleague would need to be told before changing this code; keep it short and concrete.',
    '',
    '## Architecture',
    '',
    '_What the main parts are, what may depend on what, where new code belongs._',
    ...(notes.length > 0 ? ['', ...notes] : []),
    '',
    '## Conventions',
    '',
    '_Naming, formatting, error handling, logging, the libraries to prefer and those to avoid._',
    '',
    '## Tests',
    '',
    '_What every change must come with, how tests are organised, what must never be mocked._',
    '',
    '## Security',
    '',
    '_Secrets, input validation, authentication and authorisation rules, data that must not leave the system._',
    '',
    '## Off limits',
    '',
    '_Files, folders or behaviours the service must not change (generated code, migrations, public APIs)._',
    '',
  ].join('\n');
}
