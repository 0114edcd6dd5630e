// config/service.example.yml is the operator's reference for the bootstrap file. These tests keep
// it honest: it loads without a single finding when the variables it references are set, and
// every key of the typed configuration appears in it, so a key added to the loader fails here
// until the example documents it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { AUTH_ENV_VARIABLES, readEnvironment } from '../../src/config/environment.js';
import { loadServiceConfig } from '../../src/config/load-service-config.js';
import { DEFAULT_AUTH_CLAIMS, DEFAULT_QUEUE, DEFAULT_SANDBOX } from '../../src/config/service-config.js';
import { ALL_PLATFORMS, type Platform, triggerKeyOf } from '../../src/platforms/platform.js';

const EXAMPLE = 'config/service.example.yml';
const text = readFileSync(EXAMPLE, 'utf8');
const raw = parseYaml(text) as Record<string, unknown>;

/** Typed-configuration fields read from the environment only (they have no key in the file). */
/** Fields of the typed configuration held in the database, not the file (the example names the variable that unlocks them). */
const DATABASE_ONLY = { stored_secrets: 'SERVICE_SECRETS_KEY' };
const ENVIRONMENT_ONLY = { 'auth.client_id': AUTH_ENV_VARIABLES.client_id, 'auth.scopes': AUTH_ENV_VARIABLES.scopes, 'auth.redirect_path': AUTH_ENV_VARIABLES.redirect_path };

/** Every `${NAME}` the file uses (comments included: setting an extra variable is harmless), except names defined under `secrets:`, which must resolve there. */
function referencedVariables(): Record<string, string> {
  const own = new Set(Object.keys((raw.secrets ?? {}) as object));
  const vars: Record<string, string> = {};
  for (const [, name] of text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
    if (name !== undefined && !own.has(name)) vars[name] = `value-of-${name}`;
  }
  return vars;
}

function load(vars: Record<string, string>) {
  return loadServiceConfig(readEnvironment({ SERVICE_CONFIG: EXAMPLE, ...vars }));
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Key paths in the file's shape. Maps keyed by the operator's own names become `*`, list items
 * `[]`, and a trigger block's keys are collected under `platform_?_trigger` (a key needs to appear
 * in one of the four blocks, not in each).
 */
const USER_KEYED = new Set(['secrets', 'pipelines', 'projects', 'auth.group_roles', 'auth.roles', 'projects.*.platform_?_trigger.pipeline_from_label', 'chat.channels']);

function collect(value: unknown, path: string, out: Set<string>): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) if (isObject(item)) collect(item, `${path}[]`, out);
    return out;
  }
  if (!isObject(value)) return out;
  for (const [key, child] of Object.entries(value)) {
    const childPath = USER_KEYED.has(path) ? `${path}.*` : path ? `${path}.${key}` : key;
    out.add(childPath);
    collect(child, childPath.replace(/platform_[a-d]_trigger$/, 'platform_?_trigger'), out);
  }
  return out;
}

/** The loaded configuration written back in the file's shape (triggers under their block keys, no `name` beside the project's key). */
function fileShaped(config: ReturnType<typeof load>['config']): unknown {
  const projects = Object.fromEntries(Object.entries(config.projects).map(([name, { name: _name, triggers, ...rest }]) => [
    name,
    { ...rest, ...Object.fromEntries(Object.entries(triggers).map(([platform, trigger]) => [triggerKeyOf(platform as Platform), trigger])) },
  ]));
  // chat: each platform's block sits under chat: itself, beside channels and dashboard_url.
  const { platforms, ...chat } = config.chat;
  return { ...config, projects, chat: { ...platforms, ...chat } };
}

describe('config/service.example.yml', () => {
  it('loads without a single finding when every variable it references is set', () => {
    const vars = referencedVariables();
    expect(Object.keys(vars).length).toBeGreaterThan(0);
    const { findings, file } = load(vars);
    expect(file.present).toBe(true);
    expect(findings).toEqual([]);
  });

  it('without those variables, its only findings are the unresolved references its header announces', () => {
    const { findings } = load({});
    expect(findings.length).toBeGreaterThan(0);
    for (const f of findings) {
      expect(f.subsystem).toBe('configuration');
      // An unresolved agent api_key also leaves each project that can start agent pipelines without one.
      expect(f.reason).toMatch(/references [A-Z0-9_]+, which is set neither under secrets:, nor as a stored secret, nor in the environment|can start agent pipelines but its agent has no api_key/);
    }
  });

  it('writes each default it states: queue, sandbox, claims and retention are the loader defaults', () => {
    const { config } = load(referencedVariables());
    expect(config.queue).toEqual(DEFAULT_QUEUE);
    // The one key the example sets away from its default, saying why (development on one machine).
    expect(config.sandbox).toEqual({ ...DEFAULT_SANDBOX, allow_agents_in_process: true });
    expect(DEFAULT_SANDBOX.allow_agents_in_process).toBe(false);
    expect(config.observation_retention_days).toBe(90);
    expect(config.auth).toMatchObject({ ...DEFAULT_AUTH_CLAIMS, enforce: false });
  });

  it('contains every key of the typed configuration (environment-only fields are named by their variable)', () => {
    const { config } = load(referencedVariables());
    // Optional blocks must be present, or their keys would go unchecked.
    expect(config.auth).not.toBeNull();
    expect(config.capacity).not.toBeNull();
    expect(Object.keys(config.pipelines).length).toBeGreaterThan(0);
    expect(Object.values(config.projects).some((p) => p.repos.length > 0)).toBe(true);

    const typed = collect(fileShaped(config), '', new Set());
    const inFile = collect(raw, '', new Set());
    const missing = [...typed].filter((path) => !inFile.has(path) && !(path in ENVIRONMENT_ONLY) && !(path in DATABASE_ONLY));
    expect(missing).toEqual([]);
    for (const platform of ALL_PLATFORMS) expect(inFile).toContain(`projects.*.${triggerKeyOf(platform)}`);
    for (const [path, variable] of Object.entries({ ...ENVIRONMENT_ONLY, ...DATABASE_ONLY })) {
      expect(typed, `${path} is still a field of the typed configuration`).toContain(path);
      expect(text, `the example names ${variable}`).toContain(variable);
    }
  });
});
