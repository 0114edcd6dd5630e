import { createServer } from 'node:net';
import type { CodeHost } from './code-hosts.js';

/** The commit identity configured for the tests (not the default, so the author proves the setting). */
export const GIT_IDENTITY = { author_name: 'Pipeline Bot', author_email: 'pipeline-bot@example.test' };

/** Tickets of the scenarios, one each, so their work branches never meet. */
export const TICKETS = { greet: '11', broken: '12', multi: '13', leak: '14', snoop: '15' } as const;

/** The ticket of the race, on a project whose tickets live nowhere. */
export const RACE_TICKET = 'RACE-1';

/** Tickets of the error paths that publish or fail on a project whose tickets live nowhere. */
export const ERROR_TICKETS = { partial: 'PART-1', refused: 'PRREF-1', noSecret: 'NOSECRET-1' } as const;

/** The wrong token of the credentials-refused projects (configured, so scrubbed like any secret). */
export const WRONG_TOKEN = 'wrong-e2e-token-5c1d0b';

const publish = (commands: string[]) => ({ commands, timeout_seconds: 60, publish: 'pull-request' });

/** `value` spelled backwards in a shell word: a command can rebuild it (`| rev`) without carrying it. */
function reversed(value: string): string {
  return `'${[...value].reverse().join('')}'`;
}

/**
 * Command pipelines that publish. The token of the host is never written into a command as it
 * is (a command is a step name, and step names are run events): the leak and the snoop rebuild it
 * from its reverse at run time.
 */
export function publishingPipelines(host: CodeHost, raceTip: string): Record<string, unknown> {
  const token = `"$(printf '%s' ${reversed(host.token)} | rev)"`;
  return {
    // build/ is in the repository's .gitignore: what lands there is not part of the change.
    greet: publish(["mkdir -p build && printf 'artifact\\n' > build/out.txt", "printf 'hello\\n' > greeting.txt"]),
    again: publish(['echo "edited by run $SERVICE_RUN_ID" >> greeting.txt']),
    broken: publish(["printf 'half done\\n' > progress.txt", 'exit 1']),
    resume: publish(['cat progress.txt', "printf 'all done\\n' > progress.txt"]),
    // Someone else pushes the work branch while the run works (the step writes the remote's bare
    // repository directly, as another client's push would): the run's push must not overwrite it.
    race: publish(["printf 'mine\\n' > greeting.txt", `git --git-dir='${host.bare}' update-ref refs/heads/service/${RACE_TICKET} ${raceTip}`]),
    leak: publish([
      // A GitHub token's shape, built at run time so no configuration or event carries it.
      `echo "ghp_$(printf 'a%.0s' $(seq 36))" > leak.txt`,
      // The repository's own credential as a git Basic header would carry it.
      `printf '%s:%s' '${host.gitUser}' ${token} | base64 -w0 > creds.b64`,
    ]),
    snoop: publish([
      'env',
      'git config -l; echo "git config exit $?"',
      `grep -rl ${token} . "$HOME"; echo "grep exit $?"`,
      'cat .git/config; echo "cat .git/config exit $?"',
      'ls -A; echo "home $HOME"',
    ]),
  };
}

/**
 * The projects: `shop` (one repository, tickets on the same host), `duo` (two repositories on
 * the host's platform, tickets on the first), and projects for the error paths whose
 * tickets live nowhere (a Jira tracker without its trigger: nothing is mirrored, nothing is
 * asked of a tracker), each with one repository in trouble.
 */
export function publishingProjects(host: CodeHost, second: CodeHost, doneStatus: string, closedUrl: string): Record<string, unknown> {
  const nowhere = { tracker: 'platform-d' };
  return {
    shop: { ...host.trackerConfig(doneStatus, 'greet'), repos: [host.repoEntry()] },
    duo: { ...host.trackerConfig(doneStatus, 'greet'), repos: [host.repoEntry({ path_prefix: 'web/' }), second.repoEntry({ path_prefix: 'api/' })] },
    'err-auth': { ...nowhere, repos: [host.repoEntry({ name: 'err-auth', auth_secret: WRONG_TOKEN, branch: 'main' })] },
    // Without branch: the default branch is asked of the host's API first, which refuses the token.
    'err-auth-api': { ...nowhere, repos: [host.repoEntry({ name: 'err-auth-api', auth_secret: WRONG_TOKEN })] },
    'err-protected': { ...nowhere, repos: [host.repoEntry({ name: 'err-protected' })] },
    'err-race': { ...nowhere, repos: [host.repoEntry({ name: 'err-race' })] },
    // Two repositories, the first of which refuses the push of its work branch (protected in the test).
    'err-partial': { ...nowhere, repos: [host.repoEntry({ name: 'partial-web', path_prefix: 'web/' }), second.repoEntry({ name: 'partial-api', path_prefix: 'api/' })] },
    // The host refuses to open the pull request (a fault of the stand-in in the test).
    'err-pr-refused': { ...nowhere, repos: [host.repoEntry({ name: 'err-pr-refused' })] },
    'err-no-secret': { ...nowhere, repos: [withoutSecret(host.repoEntry({ name: 'err-no-secret', branch: 'main' }))] },
    'err-down': { ...nowhere, repos: [host.repoEntry({ name: 'err-down', url: closedUrl, branch: 'main' })] },
  };
}

/** The repository entry without its `auth_secret` key (a blocking finding, but the project still loads). */
function withoutSecret(entry: Record<string, unknown>): Record<string, unknown> {
  const { auth_secret: _, ...rest } = entry;
  return rest;
}

/** A URL on a port of this machine nobody listens on (connections are refused at once). */
export async function closedPortUrl(path: string): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}${path}`;
}
