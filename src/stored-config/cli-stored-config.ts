import pg from 'pg';
import type { ServiceEnvironment } from '../config/environment.js';
import { type LoadedConfig, loadServiceConfig } from '../config/load-service-config.js';
import { openSecrets, parseSecretsKey } from '../secrets/secrets-key.js';
import { readSettingRows, settingsOf } from '../settings/settings-rows.js';

export interface CliConfig {
  loaded: LoadedConfig;
  /** Why the stored secrets and settings were not read (null: they were), for the command to say so. */
  notice: string | null;
}

/**
 * The configuration a CLI command (`run`, `init`) works with: the bootstrap file with the stored
 * settings over it and the stored secrets resolved, as the server runs, when DATABASE_URL names a
 * database. The embedded default database is not started for this (the server may hold it), so
 * there the file and the environment alone apply, and the notice says so.
 */
export async function loadCliConfig(env: ServiceEnvironment): Promise<CliConfig> {
  if (!env.databaseUrl) {
    return { loaded: loadServiceConfig(env), notice: 'stored secrets and settings are not read without DATABASE_URL: the bootstrap file and the environment apply' };
  }
  const client = new pg.Client({ connectionString: env.databaseUrl, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    const query = async (sql: string, p?: unknown[]) => (await client.query(sql, p)).rows;
    const secretRows = await query('SELECT name, value FROM secrets ORDER BY name');
    const settingRows = await readSettingRows(query);
    const { secrets, unreadable } = openSecrets(parseSecretsKey(env.secretsKey), secretRows as { name: string; value: Buffer }[]);
    const notice = unreadable.length > 0 ? `stored secret(s) ${unreadable.join(', ')} cannot be read with SERVICE_SECRETS_KEY; references to them count as unconfigured` : null;
    return { loaded: loadServiceConfig(env, env.configPath, secrets, settingsOf(settingRows)), notice };
  } catch (error) {
    return { loaded: loadServiceConfig(env), notice: `stored secrets and settings could not be read (${(error as Error).message}): the bootstrap file and the environment apply` };
  } finally {
    await client.end().catch(() => undefined);
  }
}
