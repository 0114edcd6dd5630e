/**
 * Comparison key of a repository URL, so that the URL a payload carries matches the one an
 * operator declared under `repos[].url`:
 *
 * - scheme, user info and default ports are dropped (`http://` in a GitLab example payload
 *   matches `https://` in the configuration; Azure DevOps `https://org@dev.azure.com/…` matches
 *   `https://dev.azure.com/…`);
 * - host and path compare case-insensitively;
 * - a trailing `/` and `.git` are stripped, as are query and fragment;
 * - scp-like SSH addresses (`git@host:group/repo.git`) normalise to the same key.
 *
 * Returns null for a value that is not a URL, or is longer than any real repository URL (the
 * value comes from an unverified payload, so its size is the sender's choice).
 */
export const MAX_REPOSITORY_URL_LENGTH = 2048;

export function repositoryUrlKey(url: string): string | null {
  const trimmed = url.trim();
  if (trimmed === '' || trimmed.length > MAX_REPOSITORY_URL_LENGTH) return null;
  const scp = /^[^@/\s]+@([^:/\s]+):(?!\/)(.+)$/.exec(trimmed);
  let host: string;
  let path: string;
  if (scp?.[1] !== undefined && scp[2] !== undefined) {
    host = scp[1];
    path = `/${scp[2]}`;
  } else {
    let parsed: URL;
    try {
      parsed = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`);
    } catch {
      return null;
    }
    if (parsed.hostname === '') return null;
    host = isDefaultPort(parsed) ? parsed.hostname : parsed.host;
    path = safeDecode(parsed.pathname);
  }
  // Loops, not /\/+$/: that regex is quadratic on a long run of slashes followed by anything else.
  const cleanPath = withoutTrailingSlashes(withoutTrailingSlashes(path).replace(/\.git$/i, ''));
  return `${host}${cleanPath}`.toLowerCase();
}

/** True when two repository URLs name the same repository. */
export function sameRepositoryUrl(a: string, b: string): boolean {
  const keyA = repositoryUrlKey(a);
  return keyA !== null && keyA === repositoryUrlKey(b);
}

function isDefaultPort(url: URL): boolean {
  return url.port === '' || url.port === '443' || url.port === '80' || url.port === '22';
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function withoutTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 0x2f) end -= 1;
  return path.slice(0, end);
}
