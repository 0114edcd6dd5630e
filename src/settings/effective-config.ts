import type { BootstrapSetting } from '../config/bootstrap-settings.js';
import { isPlainObject } from '../config/config-reader.js';
import { defaultDocument } from '../config/default-document.js';
import { AUTH_ENV_VARIABLES, type AuthEnvField, type ServiceEnvironment } from '../config/environment.js';
import { hasReference, isReferenceOnly, type ReferenceSource, referenceSources } from '../config/secret-references.js';
import type { ServiceConfig, WebhookSecrets } from '../config/service-config.js';
import { REDACTED, collectSecrets, scrubSecrets } from '../common/secret-scrubber.js';
import { isAtOrUnder, leavesOf, mapLeaves, overlay } from './config-tree.js';
import { type StoredSettings, settingCovering } from './settings-document.js';

/**
 * Where a value in force comes from:
 * - `environment`: an environment variable gives it: a SERVICE_AUTH_* variable (it wins over the
 *   file and a stored setting, field by field), a PLATFORM_*_WEBHOOK_* secret where neither sets
 *   the key, or `${NAME}` references that all resolve from the environment (outside a stored setting);
 * - `store`: a stored setting covers the key (saved on the dashboard or imported);
 * - `file`: written in the bootstrap file (references resolved by its `secrets:` block or by stored
 *   secrets included; `references` says which);
 * - `default`: built in.
 */
export type ConfigSource = 'store' | 'environment' | 'file' | 'default';
/** The order a block's one `source` is told in: whichever comes first among its keys. */
export const SOURCE_PRECEDENCE: readonly ConfigSource[] = ['store', 'environment', 'file', 'default'];

/** Where one `${NAME}` resolves: the file's `secrets:` block, a stored secret, the environment, or nowhere. */
export interface ConfigReference {
  name: string;
  from: 'secrets-block' | 'stored-secret' | 'environment' | 'unresolved';
}

export interface ConfigLeaf {
  key: string;
  /** Masked: `${NAME}` references as written, secrets as `***`, never a resolved secret. */
  value: unknown;
  source: ConfigSource;
  /** The environment variable that gives it (source `environment`). */
  variable?: string;
  references?: ConfigReference[];
  /** A bootstrap setting: read once at start. */
  bootstrap?: true;
  /** The configuration now says `configured`; the value in force changes only with a restart. */
  restartDue?: true;
  configured?: unknown;
}

export interface EffectiveConfigInput {
  /** The file's document with the stored settings over it (references unresolved). */
  document: unknown;
  settings: StoredSettings;
  env: ServiceEnvironment;
  config: ServiceConfig;
  /** Paths the loader reads as secrets. */
  secretFields: readonly string[];
  bootstrap: readonly BootstrapSetting[];
}

export interface EffectiveConfig {
  /** The configuration in force in the file's shape, masked. */
  tree: unknown;
  leaves: ConfigLeaf[];
  /** Names of the `secrets:` block's entries and of the stored secrets: never their values. */
  secretNames: { file: string[]; stored: string[] };
}

/** Contract: PLATFORM_B_WEBHOOK_TOKEN is also read as PLATFORM_B_WEBHOOK_SECRET (environment.ts). */
const WEBHOOK_VARIABLES: Record<keyof WebhookSecrets, string> = {
  platform_a_secret: 'PLATFORM_A_WEBHOOK_SECRET',
  platform_b_secret: 'PLATFORM_B_WEBHOOK_TOKEN',
  platform_c_secret: 'PLATFORM_C_WEBHOOK_SECRET',
  platform_d_secret: 'PLATFORM_D_WEBHOOK_SECRET',
};
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
/**
 * Names that hold secrets wherever they stand: the loader lists only the fields it read, and it
 * skips an entry it cannot load at all (a repository without a url), whose secret must stay hidden too.
 */
const SECRET_NAMED = /(^|_)(secret|password|credentials|api_key|token)$/i;

/**
 * The configuration in force, key by key, with where each value comes from: the defaults under the
 * document (file + stored settings), the environment's values over it, the bootstrap settings as
 * started. Every value passes secretMask.
 */
export function effectiveConfig(input: EffectiveConfigInput): EffectiveConfig {
  const { document, settings, env, config } = input;
  const root = isPlainObject(document) ? document : {};
  const { secrets: fileSecrets, ...written } = root;
  const writtenAt = new Map(leavesOf(written).map((l) => [l.path, l.value]));
  const environment = new Map<string, { variable: string; value: unknown }>();
  for (const [field, variable] of Object.entries(AUTH_ENV_VARIABLES) as [AuthEnvField, string][]) {
    const value = env.auth[field];
    if (value !== undefined) environment.set(`auth.${field}`, { variable, value });
  }
  for (const [key, variable] of Object.entries(WEBHOOK_VARIABLES) as [keyof WebhookSecrets, string][]) {
    const path = `webhooks.${key}`;
    const own = writtenAt.get(path);
    const fileGivesNothing = own === undefined || own === null || own === '' || referencesOf(own, config, env).some((r) => r.from === 'unresolved');
    if (env.webhookSecrets[key] !== null && fileGivesNothing) environment.set(path, { variable, value: REDACTED });
  }
  const bootstrap = new Map(input.bootstrap.map((b) => [b.key, b]));

  let tree = overlay(defaultDocument(config.auth !== null), written);
  tree = withValues(tree, [...environment].map(([path, e]) => [path, e.value]));
  tree = withValues(tree, input.bootstrap.map((b) => [b.key, b.restartDue || !hasReferenceIn(writtenAt.get(b.key)) ? b.inForce : writtenAt.get(b.key)]));

  const mask = secretMask(input.secretFields, config, env);
  const masked = mapLeaves(tree, mask);

  const sourceOf = (path: string): Pick<ConfigLeaf, 'source' | 'variable' | 'references'> => {
    const fromEnv = environment.get(path);
    if (fromEnv) return { source: 'environment', variable: fromEnv.variable };
    const b = bootstrap.get(path);
    if (b?.restartDue) return { source: b.inForce === null || b.inForce === false ? 'default' : 'file' };
    if (!writtenAt.has(path)) return { source: 'default' };
    const references = referencesOf(writtenAt.get(path), config, env);
    const withRefs = references.length > 0 ? { references } : {};
    if (settingCovering(path, settings) !== null) return { source: 'store', ...withRefs };
    if (references.length > 0 && references.every((r) => r.from === 'environment')) return { source: 'environment', ...withRefs };
    return { source: 'file', ...withRefs };
  };
  const leaves = leavesOf(masked).map(({ path, value }): ConfigLeaf => {
    const b = bootstrap.get(path);
    return {
      key: path, value, ...sourceOf(path),
      ...(b ? { bootstrap: true as const } : {}),
      ...(b?.restartDue ? { restartDue: true as const, configured: mask(path, b.configured) } : {}),
    };
  });
  leaves.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return {
    tree: masked,
    leaves,
    secretNames: { file: isPlainObject(fileSecrets) ? Object.keys(fileSecrets).sort() : [], stored: Object.keys(config.stored_secrets).sort() },
  };
}

/**
 * The one mask every value shown passes: at a field the loader reads as a secret (or named like
 * one) only `${NAME}` references and nothing are shown, anything else is `***`; elsewhere any
 * secret value the server knows is scrubbed out of the text.
 */
export function secretMask(secretFields: readonly string[], config: ServiceConfig, env: ServiceEnvironment): (path: string, value: unknown) => unknown {
  const known = collectSecrets(config, env);
  return (path, value) => {
    if (secretFields.some((f) => isAtOrUnder(path, f)) || SECRET_NAMED.test(path.replace(/\[\d+\]$/, '').split('.').at(-1)!)) {
      const shown = value === null || value === '' || (typeof value === 'string' && isReferenceOnly(value));
      return shown ? value : REDACTED;
    }
    if (typeof value === 'string') return scrubSecrets(value, known);
    if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? scrubSecrets(v, known) : v));
    return value;
  };
}

/** The highest-precedence source among some leaves (a block's keys may come from several places). */
export function strongestSource(leaves: readonly ConfigLeaf[]): ConfigSource {
  return SOURCE_PRECEDENCE.find((s) => leaves.some((l) => l.source === s)) ?? 'default';
}

const REFERENCE_FROM: Record<ReferenceSource, ConfigReference['from']> = {
  file: 'secrets-block', stored: 'stored-secret', environment: 'environment', unresolved: 'unresolved',
};

function referencesOf(value: unknown, config: ServiceConfig, env: ServiceEnvironment): ConfigReference[] {
  const texts = typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  const names = new Set(texts.flatMap((t) => [...t.matchAll(REFERENCE)].map((m) => m[1]!)));
  const sourceOf = referenceSources(config.secrets, config.stored_secrets, env.variables);
  return [...names].map((name) => ({ name, from: REFERENCE_FROM[sourceOf(name)] }));
}

const hasReferenceIn = (value: unknown) => typeof value === 'string' && hasReference(value);

/** The tree with the values at these dotted paths (no `[i]`) set, creating mappings on the way. */
function withValues(tree: unknown, values: readonly (readonly [string, unknown])[]): unknown {
  const root: Record<string, unknown> = isPlainObject(tree) ? structuredClone(tree) : {};
  for (const [path, value] of values) {
    const segments = path.split('.');
    let node = root;
    for (const segment of segments.slice(0, -1)) {
      if (!isPlainObject(node[segment])) node[segment] = {};
      node = node[segment] as Record<string, unknown>;
    }
    node[segments.at(-1)!] = value;
  }
  return root;
}
