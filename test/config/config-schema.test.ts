// config/service.schema.json is generated from the tables the loader reads with. These tests hold
// the two together from the outside: the committed file is a fresh generation, the example file
// passes it, a bad key or value is reported by the schema at exactly the path the loader reports
// it, and the keys the schema names are the keys the loader accepts, block by block.
import { readFileSync } from 'node:fs';
import Ajv, { type ErrorObject } from 'ajv';
import ajvFormats from 'ajv-formats';
import { describe, expect, it, vi } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { CONFIG_EXAMPLE_FILE, CONFIG_SCHEMA_FILE, type JsonSchema, configJsonSchemaText } from '../../src/config/config-json-schema.js';
import { ConfigReader } from '../../src/config/config-reader.js';
import { readEnvironment } from '../../src/config/environment.js';
import { buildConfig } from '../../src/config/load-service-config.js';
import type { Finding } from '../../src/findings/finding.js';

const exampleText = readFileSync(CONFIG_EXAMPLE_FILE, 'utf8');
const committed = readFileSync(CONFIG_SCHEMA_FILE, 'utf8');
const schema = JSON.parse(committed) as JsonSchema;

const ajv = new Ajv.default({ allErrors: true, strict: true, allowUnionTypes: true });
ajvFormats.default(ajv);
const validate = ajv.compile(schema);

/** Every variable the example references set, so that the example alone loads without a finding. */
const env = readEnvironment(Object.fromEntries([...exampleText.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map(([, name]) => [name, `value-of-${name}`])));

const example = () => parseYaml(exampleText) as Record<string, any>;

/** The loader's findings for a document: the `field` each names. */
function loaderPaths(document: unknown): string[] {
  const findings: Finding[] = [];
  buildConfig(document, env, findings);
  return [...new Set(findings.map((f) => f.field ?? '(no field)'))].sort();
}

/** ajv's errors as the loader names a place: `projects.shop.repos[0].url`; an extra key is named by itself. */
function schemaPaths(document: unknown): string[] {
  validate(document);
  const paths = (validate.errors ?? []).map((e: ErrorObject) => {
    const pointer = e.keyword === 'additionalProperties' ? `${e.instancePath}/${(e.params as { additionalProperty: string }).additionalProperty}` : e.instancePath;
    return pointer.split('/').slice(1).map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
  });
  return [...new Set(paths)].sort();
}

describe('config/service.schema.json', () => {
  it('is what `npm run schema` generates now (edit config-shape.ts or the example, then run it)', () => {
    expect(committed).toBe(configJsonSchemaText(exampleText));
  });

  it('is a valid draft-07 schema that the example file passes with zero errors', () => {
    expect(ajv.validateSchema(schema)).toBe(true);
    expect(validate(example())).toBe(true);
    expect(validate.errors ?? []).toEqual([]);
    // The premise of the comparisons below: the loader finds nothing in the example either.
    expect(loaderPaths(example())).toEqual([]);
  });

  it('gives every key a description taken from the example', () => {
    const undocumented: string[] = [];
    const visit = (node: JsonSchema, path: string) => {
      for (const [key, child] of Object.entries((node.properties ?? {}) as Record<string, JsonSchema>)) {
        if (typeof child.description !== 'string' || child.description.length < 10) undocumented.push(`${path}${key}`);
        visit(child, `${path}${key}.`);
      }
      for (const nested of [node.items, node.additionalProperties]) if (typeof nested === 'object' && nested !== null) visit(nested as JsonSchema, `${path}*.`);
    };
    visit(schema, '');
    expect(undocumented).toEqual([]);
    const queue = (schema.properties as Record<string, JsonSchema>).queue!;
    expect((queue.properties as Record<string, JsonSchema>).max_parallel_runs!.description).toBe('Runs this process executes at the same time (queue consumer concurrency). Default: 4.');
  });

  // Each case changes the example in one place; the loader and the schema must name the same place.
  const cases: [string, (doc: Record<string, any>) => void, string][] = [
    ['a typo at the top level', (d) => { d.observation_retention_dayz = 30; }, 'observation_retention_dayz'],
    ['a wrong type at the top level', (d) => { d.observation_retention_days = 'ninety'; }, 'observation_retention_days'],
    ['a typo in queue', (d) => { d.queue.max_paralel_runs = 4; }, 'queue.max_paralel_runs'],
    ['a wrong type in queue', (d) => { d.queue.max_parallel_runs = [4]; }, 'queue.max_parallel_runs'],
    ['a value below its bound in queue', (d) => { d.queue.lease_ttl_seconds = 0; }, 'queue.lease_ttl_seconds'],
    ['a typo in a repository', (d) => { d.projects.shop.repos[0].brnch = 'main'; }, 'projects.shop.repos[0].brnch'],
    ['a wrong type in a repository', (d) => { d.projects.shop.repos[0].api_url = { host: 'x' }; }, 'projects.shop.repos[0].api_url'],
    ['a typo in sandbox', (d) => { d.sandbox.imgae = 'node:24'; }, 'sandbox.imgae'],
    ['a wrong type in sandbox', (d) => { d.sandbox.pids_limit = 'many'; }, 'sandbox.pids_limit'],
    ['a value outside the choices in sandbox', (d) => { d.sandbox.network = 'host'; }, 'sandbox.network'],
    ['root as the sandbox user', (d) => { d.sandbox.user = '0:0'; }, 'sandbox.user'],
    ['a typo in auth', (d) => { d.auth.enforced = true; }, 'auth.enforced'],
    ['a wrong type in auth', (d) => { d.auth.enforce = 'maybe'; }, 'auth.enforce'],
    ['a wrong type in a role mapping', (d) => { d.auth.group_roles.ops = { operator: true }; }, 'auth.group_roles.ops'],
    ['a typo in a trigger block', (d) => { d.projects.erp.platform_c_trigger.team_projekt = 'ERP'; }, 'projects.erp.platform_c_trigger.team_projekt'],
    ['a polling interval below 10 seconds', (d) => { d.projects.erp.platform_c_trigger.polling.interval_seconds = 5; }, 'projects.erp.platform_c_trigger.polling.interval_seconds'],
    ["a wrong type in a project's agent", (d) => { d.projects.billing.agent.max_cost_usd = 'eight'; }, 'projects.billing.agent.max_cost_usd'],
    ['an unknown publish mode', (d) => { d.pipelines.lint.publish = 'always'; }, 'pipelines.lint.publish'],
    ['an unknown threshold', (d) => { d.security_scan.fail_on = 'severe'; }, 'security_scan.fail_on'],
    ['a quantity that is not one', (d) => { d.capacity.memory = '16 gigs'; }, 'capacity.memory'],
  ];
  it.each(cases)('%s is reported at the same path by the loader and the schema', (_name, change, path) => {
    const doc = example();
    change(doc);
    expect(loaderPaths(doc)).toEqual([path]);
    expect(schemaPaths(doc)).toEqual([path]);
  });
});

describe('the keys of the schema and of the loader', () => {
  /**
   * A document holding every key the schema names, each with a value the schema accepts, and
   * (with `extra`) one key the schema does not name in every block; returns the paths of those.
   */
  function everyKey(node: JsonSchema, path: string, extras: string[] | null): unknown {
    const types = ([] as unknown[]).concat(node.type ?? []);
    if (node.enum) return (node.enum as unknown[]).find((v) => v !== null);
    if (node.default !== undefined) return node.default;
    if (node.properties) {
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(node.properties as Record<string, JsonSchema>)) {
        out[key] = everyKey(child, path ? `${path}.${key}` : key, extras);
      }
      if (extras) {
        out.zz_not_a_key = 'x';
        extras.push(path ? `${path}.zz_not_a_key` : 'zz_not_a_key');
      }
      return out;
    }
    if (typeof node.additionalProperties === 'object') return { sample: everyKey(node.additionalProperties as JsonSchema, `${path}.sample`, extras) };
    if (types.includes('array') && node.items) return [everyKey(node.items as JsonSchema, `${path}[0]`, extras)];
    // Numbers where the schema bounds them (integers, decimals, quantities); text elsewhere.
    return 'minimum' in node || 'exclusiveMinimum' in node ? 1 : 'x';
  }

  it('the loader accepts every key the schema names, with no unknown-key finding', () => {
    const doc = everyKey(schema, '', null) as Record<string, any>;
    // Every block is really there, down to the keys of a repository and of polling.
    expect(doc.projects.sample.repos[0].branch).toBe('x');
    expect(doc.projects.sample.platform_d_trigger.polling.interval_seconds).toBe(60);
    expect(doc.sandbox.registry.password).toBe('x');
    expect(schemaPaths(doc)).toEqual([]);
    const findings: Finding[] = [];
    buildConfig(doc, env, findings);
    expect(findings.filter((f) => /unknown key/.test(f.reason))).toEqual([]);
  });

  it('every block the schema declares refuses, in the loader too, a key the schema does not name', () => {
    const extras: string[] = [];
    const doc = everyKey(schema, '', extras);
    expect(extras.length).toBeGreaterThan(20);
    const findings: Finding[] = [];
    buildConfig(doc, env, findings);
    const unknown = findings.filter((f) => /unknown key/.test(f.reason)).map((f) => f.field).sort();
    expect(unknown).toEqual([...extras].sort());
    expect(schemaPaths(doc)).toEqual([...extras].sort());
  });

  /** The schema's node at a loader path (`projects.sample.repos[0]`). */
  function nodeAt(path: string): JsonSchema {
    let node = schema;
    for (const part of path.split(/\.|(?=\[)/).filter(Boolean)) {
      const props = (node.properties ?? {}) as Record<string, JsonSchema>;
      node = part.startsWith('[') ? node.items as JsonSchema : props[part] ?? node.additionalProperties as JsonSchema;
      if (node === undefined) throw new Error(`the schema has nothing at ${path}`);
    }
    return node;
  }

  it('each block the loader opens accepts exactly the keys the schema names there, and it opens every block the schema names', () => {
    // Observed, not replaced: the real block() runs; this only notes which keys it was given.
    const opened = new Map<string, string[]>();
    const block = ConfigReader.prototype.block;
    const spy = vi.spyOn(ConfigReader.prototype, 'block').mockImplementation(function (this: ConfigReader, ...args: Parameters<typeof block>) {
      const [, where, shape] = args;
      opened.set(where.path, Array.isArray(shape) ? [...shape] : Object.keys(shape.keys));
      return block.apply(this, args);
    });
    const extras: string[] = [];
    try {
      buildConfig(everyKey(schema, '', extras), env, []);
    } finally {
      spy.mockRestore();
    }
    for (const [path, keys] of opened) {
      const node = nodeAt(path);
      // Maps keyed by the operator's names (projects, pipelines) take any key, in both.
      if (typeof node.additionalProperties === 'object') continue;
      expect(keys.toSorted(), `keys of ${path || 'the root'}`).toEqual(Object.keys(node.properties as object).toSorted());
    }
    const blocks = extras.map((p) => p.replace(/\.?zz_not_a_key$/, ''));
    expect(blocks.filter((p) => !opened.has(p))).toEqual([]);
  });
});
