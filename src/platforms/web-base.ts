/**
 * `origin/path` of a configured URL without credentials, query, trailing slashes or (for a
 * repository) `.git`; null for a malformed or non-http URL. Links built from it never carry a
 * secret written into a repository URL.
 */
export function webBase(raw: string, repository = true): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  let path = url.pathname.replace(/\/+$/, '');
  if (repository) {
    path = path.replace(/\.git$/, '').split('/-/')[0] ?? '';
    if (!path.slice(1).includes('/')) return null;
  }
  return `${url.origin}${path}`;
}
