/** Query parameters that may carry a credential (`?access_token=`, `?sig=`, `?api-key=` …). */
const SECRET_PARAMETER = /token|key|secret|password|passwd|pwd|sig|auth|credential|code/i;

/**
 * `url` fit to show: no userinfo, no fragment, no query parameter named like a credential;
 * null when it is not a URL at all (a path, a typo), since then nothing can be said of it safely.
 */
export function credentialFreeUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return null;
  }
  parsed.username = '';
  parsed.password = '';
  parsed.hash = '';
  for (const name of [...parsed.searchParams.keys()]) if (SECRET_PARAMETER.test(name)) parsed.searchParams.delete(name);
  return parsed.href;
}
