import { describe, expect, it } from 'vitest';
import { Platform } from '../platform.js';
import { TrackerError } from '../tracker-client.js';
import { basicAuth, bearerAuth, nextLink, TrackerHttp } from './tracker-http.js';

const TOKEN = 'ghp_UnitTestSecretToken987';

/** A TrackerHttp whose fetch records what would have gone out and answers 200 `[]`. */
function client(baseUrl: string, auth = bearerAuth(TOKEN)): { http: TrackerHttp; sent: { url: string; headers: Record<string, string> }[] } {
  const sent: { url: string; headers: Record<string, string> }[] = [];
  const fakeFetch = (async (input: URL | string, init?: RequestInit) => {
    sent.push({ url: String(input), headers: { ...(init?.headers as Record<string, string>) } });
    return new Response('[]', { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  return { http: new TrackerHttp(Platform.GitHub, baseUrl, auth, { fetch: fakeFetch, maxAttempts: 1 }), sent };
}

async function refusal(http: TrackerHttp, path: string): Promise<TrackerError> {
  const err = await http.request({ method: 'GET', path }).then(
    () => { throw new Error(`expected ${JSON.stringify(path)} to be refused`); },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TrackerError);
  return err as TrackerError;
}

describe('TrackerHttp request URLs', () => {
  // Each of these resolves (WHATWG URL rules, as fetch applies them) to a host other than the
  // base's; the old guard only looked at paths matching ^https?:// and let them through.
  const otherHost = [
    'https://evil.example/repos/a/b/issues?page=2',
    'HTTPS://EVIL.EXAMPLE/x',
    'http://api.github.com/x', // same host, other scheme: another origin
    'https://api.github.com:8443/x',
    'http:/evil.example/x',
    'http:\\\\evil.example/x',
    'http:/\\evil.example/x',
    'https:\\\\evil.example/x',
    '\\\\evil.example/x',
    '\\/evil.example/x',
    ' https://evil.example/x',
    '\thttps://evil.example/x',
    'ht\ttps://evil.example/x',
    'https://evil.example\\@api.github.com/x',
    'https://api.github.com.evil.example/x',
    'ftp://evil.example/x',
    'data:text/plain,hello',
    'file:///etc/passwd',
  ];

  it.each(otherHost)('refuses %j on https://api.github.com: nothing sent, non-retryable', async (path) => {
    const { http, sent } = client('https://api.github.com');
    const err = await refusal(http, path);
    expect(err).toMatchObject({ status: null, retryable: false, platform: Platform.GitHub });
    expect(err.message).toMatch(/refusing/);
    expect(err.message).not.toContain(TOKEN);
    expect(sent).toEqual([]);
  });

  it.each([
    ['/\\evil.example/x', 'https://api.github.com/evil.example/x'], // the leading slash is stripped, as for every path
    ['https:/evil.example/x', 'https://api.github.com/evil.example/x'], // same scheme as the base: a relative path
    ['https:evil.example/x', 'https://api.github.com/evil.example/x'],
  ])('%j only looks foreign: it resolves to %s on the base host', async (path, expected) => {
    const { http, sent } = client('https://api.github.com');
    await http.request({ method: 'GET', path });
    expect(sent.map((s) => s.url)).toEqual([expected]);
  });

  it.each([
    'https://ghe.example/other-app/x',
    '/../../other-app/x',
    '../x',
    '%2e%2e/%2e%2e/other-app/x',
    'repos/../../../x',
    '\\evil/x', // a backslash is a slash in http(s) URLs: root-relative, outside /api/v3/
    'https://ghe.example/api/v30/x', // prefix of the path string, not of its segments
  ])('refuses %j outside the base path https://ghe.example/api/v3', async (path) => {
    const { http, sent } = client('https://ghe.example/api/v3', basicAuth('bot', 'hunter2-secret'));
    const err = await refusal(http, path);
    expect(err).toMatchObject({ status: null, retryable: false });
    expect(err.message).toMatch(/refusing to send credentials outside the configured base URL/);
    expect(sent).toEqual([]);
  });

  it('refuses a same-origin URL carrying userinfo', async () => {
    const { http, sent } = client('https://api.github.com');
    const err = await refusal(http, 'https://someone:pw@api.github.com/x');
    expect(err.message).toMatch(/userinfo/);
    expect(err.message).not.toContain('pw@');
    expect(sent).toEqual([]);
  });

  it('refuses an unparsable URL', async () => {
    const { http, sent } = client('https://api.github.com');
    expect((await refusal(http, 'https://[::1')).message).toMatch(/unparsable/);
    expect(sent).toEqual([]);
  });

  it.each([
    ['repos/a/b/issues', 'https://ghe.example/api/v3/repos/a/b/issues'],
    ['/repos/a/b/issues', 'https://ghe.example/api/v3/repos/a/b/issues'],
    ['//repos/a/b/issues', 'https://ghe.example/api/v3/repos/a/b/issues'],
    ['https://ghe.example/api/v3/repositories/7/issues?page=2', 'https://ghe.example/api/v3/repositories/7/issues?page=2'],
    ['HTTPS://GHE.EXAMPLE:443/api/v3/x', 'https://ghe.example/api/v3/x'],
  ])('sends %j as %s with the credential', async (path, expected) => {
    const { http, sent } = client('https://ghe.example/api/v3/');
    await http.request({ method: 'GET', path });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.url).toBe(expected);
    expect(sent[0]!.headers.Authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('keeps a query on an allowed Link URL and adds the request query', async () => {
    const { http, sent } = client('https://api.github.com/');
    await http.request({ method: 'GET', path: 'https://api.github.com/repositories/1/issues?page=3&per_page=100', query: { state: 'open', skip: undefined } });
    expect(sent[0]!.url).toBe('https://api.github.com/repositories/1/issues?page=3&per_page=100&state=open');
  });
});

describe('nextLink', () => {
  it('returns the rel="next" target verbatim (the request path guard decides whether to follow it)', () => {
    const headers = new Headers({ link: '<https://api.github.com/x?page=1>; rel="prev", <http:/evil.example/x>; rel="next"' });
    expect(nextLink(headers)).toBe('http:/evil.example/x');
    expect(nextLink(new Headers())).toBeNull();
  });
});
