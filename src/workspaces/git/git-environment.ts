import type { GitCredential } from './git-credential.js';

/** Where git is looked up when the caller names no PATH (the in-process sandbox backend's default too). */
export const DEFAULT_GIT_PATH = '/usr/local/bin:/usr/bin:/bin';

export interface GitEnvironmentOptions {
  /** An empty directory of the server's: git's HOME, so nothing of a user's (~/.gitconfig, ~/.git-credentials) is read. */
  home: string;
  /** PATH of the git process (where `git` itself is found). */
  path: string;
  /** Sent as HTTP Basic to `url` (and only there) for this invocation. */
  credential?: { value: GitCredential; url: string } | null;
  /** Further `key=value` configuration for this invocation (identity, gc settings, …). */
  config?: Readonly<Record<string, string>>;
  /** Further variables (GIT_DIR, GIT_INDEX_FILE, author and committer, …). */
  variables?: Readonly<Record<string, string>>;
}

/**
 * Configuration every invocation gets, whatever the repository's own config says: no hooks (a
 * repository's content must never run code on the server), no credential helper or prompt, no
 * transport but http(s) and local paths (the mirror), no external attributes file.
 */
const BASE_CONFIG: Readonly<Record<string, string>> = {
  'core.hooksPath': '/dev/null',
  'core.attributesFile': '/dev/null',
  'core.excludesFile': '/dev/null',
  'core.askPass': '',
  'credential.helper': '',
  'protocol.allow': 'never',
  'protocol.http.allow': 'always',
  'protocol.https.allow': 'always',
  'protocol.file.allow': 'always',
  // git keeps sending the extraHeader to wherever a redirect pointed it: never follow one.
  'http.followRedirects': 'false',
  'init.defaultBranch': 'main',
  'advice.detachedHead': 'false',
};

/**
 * The complete environment of one git process: nothing inherited from the server's. Host and
 * user configuration are switched off (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL=/dev/null, HOME an
 * empty directory), prompts and askpass programs are disabled, messages are in English (the
 * failure classifier reads them).
 *
 * The credential travels as `http.<url>.extraHeader=Authorization: Basic …` in GIT_CONFIG_* variables:
 * never on argv (world-readable in /proc/<pid>/cmdline and `ps`), never in a config file, and
 * scoped by URL so a submodule does not receive it. Redirects are not followed at all: after one,
 * git sends its later requests (header included) straight to the new address. Chosen over
 * GIT_ASKPASS because it needs no helper program on disk and sends the header with the first
 * request (no 401 round trip per invocation).
 */
export function gitEnvironment(options: GitEnvironmentOptions): Record<string, string> {
  const config: Record<string, string> = { ...BASE_CONFIG, ...options.config };
  if (options.credential) {
    const { value, url } = options.credential;
    const basic = Buffer.from(`${value.username}:${value.password}`, 'utf8').toString('base64');
    config[`http.${url}.extraHeader`] = `Authorization: Basic ${basic}`;
  }
  const env: Record<string, string> = {
    PATH: options.path,
    HOME: options.home,
    XDG_CONFIG_HOME: options.home,
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    GCM_INTERACTIVE: 'never',
    ...options.variables,
  };
  const entries = Object.entries(config);
  env.GIT_CONFIG_COUNT = String(entries.length);
  entries.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

/** The forms of a credential that could show up in git's output, for the secret scrubber. */
export function credentialSecrets(credential: GitCredential | null | undefined): string[] {
  if (!credential) return [];
  const pair = `${credential.username}:${credential.password}`;
  return [credential.password, pair, Buffer.from(pair, 'utf8').toString('base64')];
}
