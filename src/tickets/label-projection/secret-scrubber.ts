import type { ServiceEnvironment } from '../../config/environment.js';
import type { ServiceConfig } from '../../config/service-config.js';

/** What replaces a secret in text the service writes outside itself. */
export const REDACTED = '***';

/** Shorter values are not scrubbed: replacing two letters everywhere would garble the text, not protect it. */
const MIN_SECRET_LENGTH = 4;

/** Environment variables whose value counts as secret even when no configuration field refers to it. */
const SECRET_VARIABLE = /SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL|API_KEY|PRIVATE_KEY/i;

/**
 * Every secret value the service knows: the `secrets:` map, webhook secrets, each repository's
 * `auth_secret`, each trigger's `credentials` and `secret` (with the token half of a Jira
 * `user:token` and the Basic-auth encodings the clients send), store and database passwords,
 * and environment variables named like secrets.
 */
export function collectSecrets(config: ServiceConfig, env: ServiceEnvironment | null = null): string[] {
  const found = new Set<string>();
  const add = (value: string | null | undefined) => {
    if (typeof value === 'string' && value.length >= MIN_SECRET_LENGTH) found.add(value);
  };
  for (const value of Object.values(config.secrets)) add(value);
  for (const value of Object.values(config.webhooks)) add(value);
  for (const project of Object.values(config.projects)) {
    for (const repo of project.repos) add(repo.auth_secret);
    for (const trigger of Object.values(project.triggers)) {
      add(trigger?.secret);
      const credentials = trigger?.credentials;
      if (!credentials) continue;
      add(credentials);
      add(Buffer.from(credentials).toString('base64'));
      add(Buffer.from(`:${credentials}`).toString('base64'));
      const sep = credentials.indexOf(':');
      if (sep > 0) add(credentials.slice(sep + 1));
    }
  }
  if (env) {
    for (const value of Object.values(env.webhookSecrets)) add(value);
    add(urlPassword(env.databaseUrl));
    add(urlPassword(env.kvstoreUrl));
    for (const [name, value] of Object.entries(env.variables)) if (SECRET_VARIABLE.test(name)) add(value);
  }
  return [...found];
}

/** `text` with every secret (and its URL-encoded form) replaced by `***`, longest first. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    out = out.split(secret).join(REDACTED);
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) out = out.split(encoded).join(REDACTED);
  }
  return out;
}

function urlPassword(url: string | null): string | null {
  if (!url) return null;
  try {
    const password = new URL(url).password;
    return password ? decodeURIComponent(password) : null;
  } catch {
    return null;
  }
}
