import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { deriveContextTemplate, readmeDescription } from './context-template.js';
import { parseContextYaml } from './context-yaml.js';
import type { TreeFacts } from './tree-facts.js';

const facts = (files: string[], texts: Record<string, string> = {}, directories: string[] = []): TreeFacts => ({ files, directories, texts });
const derive = (f: TreeFacts) => {
  const template = deriveContextTemplate(f, { repo: 'shop-web', name: 'default' });
  // Whatever is derived must pass the gate's own parser.
  const settings = parseContextYaml('shop-web', 'default', template.contextYaml);
  return { template, settings, raw: parse(template.contextYaml) as Record<string, unknown> };
};

describe('a context template derived from the tree', () => {
  it('Node with npm: npm ci, the build script when there is one, npm test; node image; README paragraph as description', () => {
    const { template, settings } = derive(facts(['package.json', 'package-lock.json', 'README.md'], {
      'package.json': JSON.stringify({ scripts: { build: 'tsc', test: 'vitest run' } }),
      'README.md': '# Shop Web\n\n[![ci](https://x/badge.svg)](https://x)\n\nThe **storefront** of [Acme](https://acme.example), in\nTypeScript.\n\n## Start\n',
    }));
    expect(settings).toEqual({
      name: 'default', path: '.', description: 'The storefront of Acme, in TypeScript.', image: 'node:24',
      setup: ['npm ci'], build: ['npm run build'], test: ['npm test'], notes: [],
    });
    expect(template.derivedFrom).toEqual(['package.json', 'package-lock.json', 'README.md']);
    expect(template.contextYaml).toMatch(/^# A pipeline-service context/);
    expect(template.contextYaml).toContain('# Derived by project initialisation from package.json, package-lock.json, README.md');
    expect(template.principles).toMatch(/^# Principles of the `default` context/);
    expect(template.principles).toContain('derived from `package.json`, `package-lock.json`, `README.md` (toolchain: node)');
    for (const section of ['## Architecture', '## Conventions', '## Tests', '## Security', '## Off limits']) expect(template.principles).toContain(section);
  });

  it('Node without a build script, with npm\'s placeholder test and no lockfile', () => {
    const { settings } = derive(facts(['package.json'], { 'package.json': '{"scripts":{"test":"echo \\"Error: no test specified\\" && exit 1"}}' }));
    expect(settings).toMatchObject({ setup: ['npm install'], build: [], test: [], description: 'The shop-web repository.' });
  });

  it('pnpm and yarn by their lockfiles', () => {
    const scripts = { 'package.json': '{"scripts":{"build":"vite build","test":"vitest"}}' };
    expect(derive(facts(['package.json', 'pnpm-lock.yaml'], scripts)).settings).toMatchObject({
      setup: ['corepack enable && pnpm install --frozen-lockfile'], build: ['pnpm run build'], test: ['pnpm test'],
    });
    expect(derive(facts(['package.json', 'yarn.lock'], scripts)).settings).toMatchObject({
      setup: ['corepack enable && yarn install --frozen-lockfile'], build: ['yarn run build'], test: ['yarn test'],
    });
  });

  it('Go, Rust, Python, Maven and Gradle', () => {
    expect(derive(facts(['go.mod', 'go.sum'])).settings).toMatchObject({ image: 'golang:1', setup: ['go mod download'], build: ['go build ./...'], test: ['go test ./...'] });
    expect(derive(facts(['Cargo.toml', 'Cargo.lock'])).settings).toMatchObject({ image: 'rust:1', setup: ['cargo fetch --locked'], build: ['cargo build'], test: ['cargo test'] });
    expect(derive(facts(['requirements.txt'])).settings).toMatchObject({ image: 'python:3.12', setup: ['pip install -r requirements.txt', 'pip install pytest'], test: ['pytest'] });
    expect(derive(facts(['pyproject.toml'])).settings).toMatchObject({ setup: ['pip install -e .', 'pip install pytest'], test: ['pytest'] });
    expect(derive(facts(['pom.xml'])).settings).toMatchObject({ image: 'maven:3-eclipse-temurin-21', build: ['mvn -B package -DskipTests'], test: ['mvn -B test'] });
    expect(derive(facts(['build.gradle.kts', 'gradlew'])).settings).toMatchObject({ image: 'gradle:8-jdk21', build: ['./gradlew build -x test'], test: ['./gradlew test'] });
  });

  it('a Makefile alone: make and make test; beside a toolchain it is only mentioned', () => {
    expect(derive(facts(['Makefile'])).settings).toMatchObject({ image: null, setup: [], build: ['make'], test: ['make test'] });
    const both = derive(facts(['Makefile', 'go.mod']));
    expect(both.settings).toMatchObject({ build: ['go build ./...'] });
    expect(both.template.principles).toContain('The repository has a `Makefile`');
  });

  it('several toolchains: every one\'s commands, no image (the team picks one)', () => {
    const { settings, template } = derive(facts(['go.mod', 'package.json', 'package-lock.json'], { 'package.json': '{}' }, ['web', 'cmd']));
    expect(settings).toMatchObject({ image: null, setup: ['npm ci', 'go mod download'], build: ['go build ./...'], test: ['go test ./...'] });
    expect(template.toolchains).toEqual(['node', 'go']);
    expect(template.principles).toContain('`web/`, `cmd/`');
  });

  it('nothing recognised: empty commands, and the files say so', () => {
    const { settings, raw, template } = derive(facts(['notes.txt']));
    expect(settings).toMatchObject({ image: null, setup: [], build: [], test: [], description: 'The shop-web repository.' });
    expect(raw).toMatchObject({ setup: [], build: [], test: [], image: '' });
    expect(template.contextYaml).toContain('nothing in the tree named a toolchain');
    expect(template.principles).toContain('written without a recognised toolchain');
  });

  it('a description is quoted safely whatever the README says', () => {
    const { settings } = derive(facts(['README.md'], { 'README.md': 'Title\n=====\n\nkey: value # not a comment, "quoted" & {braces}\n' }));
    expect(settings.description).toBe('key: value # not a comment, "quoted" & {braces}');
  });
});

describe('the README\'s description', () => {
  it('takes the first heading when there is no paragraph, and skips code blocks', () => {
    expect(readmeDescription('# Billing API\n\n```sh\nmake\n```\n')).toBe('Billing API');
    expect(readmeDescription('')).toBeNull();
    expect(readmeDescription(`${'word '.repeat(100)}\n`)!.length).toBeLessThanOrEqual(300);
  });
});
