import { describe, expect, it } from 'vitest';
import { DEFAULT_AGENT, defaultServiceConfig } from '../config/service-config.js';
import { Platform } from '../platforms/platform.js';
import { collectSecrets, REDACTED, scrubSecrets } from './secret-scrubber.js';

const TOKEN = 'ghp_Ab12/Cd34+Ef56=Gh78';
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const b64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** The text around a secret survives; the secret (in whatever form) does not. */
function expectScrubbed(form: string, secret = TOKEN, secrets: readonly string[] = [secret]) {
  const out = scrubSecrets(`before ${form} after`, secrets);
  expect(out).toBe(`before ${REDACTED} after`);
}

describe('scrubSecrets', () => {
  it('scrubs the secret as it is, inside longer words, and leaves the rest of the text alone', () => {
    expect(scrubSecrets(`token=${TOKEN}; again:${TOKEN}x`, [TOKEN])).toBe('token=***; again:***x');
    expect(scrubSecrets('nothing secret here', [TOKEN])).toBe('nothing secret here');
    expect(scrubSecrets('', [TOKEN])).toBe('');
  });

  it('scrubs the secret in another case', () => {
    expectScrubbed(TOKEN.toUpperCase());
    expectScrubbed(TOKEN.toLowerCase());
    expectScrubbed('GHP_aB12/cD34+eF56=gH78');
    expectScrubbed('PÄSSWÖRT-geheim', 'pässwört-geheim');
  });

  it('scrubs percent-encoded forms in either hex case, partly encoded, double-encoded and form-encoded', () => {
    const upper = encodeURIComponent(TOKEN);
    expect(upper).toContain('%2F');
    expectScrubbed(upper);
    expectScrubbed(upper.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()));
    expectScrubbed('ghp_Ab12/Cd34%2bEf56%3dGh78'); // only some characters encoded
    expectScrubbed('ghp_Ab12%252FCd34%252BEf56%253DGh78'); // encoded twice
    expectScrubbed('GHP_AB12%2FCD34%2BEF56%3DGH78'); // other case and encoded
    expectScrubbed('ghp%5fAb12/Cd34+Ef56=Gh78'); // a character encodeURIComponent leaves alone
    expectScrubbed('my+pass+phrase', 'my pass phrase');
    expectScrubbed('p%C3%A4ssw%C3%B6rt', 'pässwört');
    expectScrubbed('p%c3%a4ssw%c3%b6rt', 'pässwört');
    expect(scrubSecrets(`https://x:${upper}@github.com/a/b.git`, [TOKEN])).toBe('https://x:***@github.com/a/b.git');
    expectScrubbed('P%C3%84SSW%C3%96RT', 'pässwört'); // escaped non-ASCII in the other case
    expectScrubbed('pa%ss-word', 'pa%ss-word'); // a secret with its own %
    expectScrubbed('pa%25ss-word', 'pa%ss-word');
    // Hex digits after a literal % are read as an escape; the secret is still found as written.
    expect(scrubSecrets('rate 100%deadbeef42 done', ['deadbeef42'])).toBe('rate 100%*** done');
  });

  it('scrubs base64 and base64url of the secret, padded or not', () => {
    for (const secret of [TOKEN, 'glpat-repo-secret', 'env-token-value?>>', 'abcd', 'abcde']) {
      expectScrubbed(b64(secret), secret);
      expectScrubbed(b64(secret).replace(/=+$/, ''), secret);
      expectScrubbed(b64url(secret), secret);
      expectScrubbed(encodeURIComponent(b64(secret)), secret);
    }
  });

  it('scrubs git extraheader and Basic-auth encodings: x-access-token:, oauth2:, :secret and user:secret', () => {
    expect(scrubSecrets(`http.extraheader=AUTHORIZATION: basic ${b64(`x-access-token:${TOKEN}`)}`, [TOKEN]))
      .toBe('http.extraheader=AUTHORIZATION: basic ***');
    expect(scrubSecrets(`Authorization: Basic ${b64(`oauth2:${TOKEN}`)}\nnext line`, [TOKEN])).toBe('Authorization: Basic ***\nnext line');
    expect(scrubSecrets(`Basic ${b64(`:${TOKEN}`)} done`, [TOKEN])).toBe('Basic *** done');
    expect(scrubSecrets(`Basic ${b64url(`x-access-token:${TOKEN}`)} done`, [TOKEN])).toBe('Basic *** done');
  });

  it('scrubs the secret inside base64 of any longer string, at each of the three byte alignments', () => {
    for (const secret of [TOKEN, 'glpat-repo-secret', 'abcd']) {
      for (const user of ['', 'a', 'ab', 'abc', 'deploy-bot', 'someone@example.com']) {
        for (const suffix of ['', ':', 'x', 'xy', ':x-oauth-basic']) {
          for (const encode of [b64, b64url]) {
            const encoded = encode(`${user}:${secret}${suffix}`);
            const out = scrubSecrets(`Basic ${encoded} end`, [secret]);
            expect(out, `${user}:${secret}${suffix}`).toMatch(/^Basic \S*\*\*\*\S* end$/);
            // What is left of the encoding is only the characters that also carry bits of the neighbours:
            // those before the secret's first whole 6-bit group and after its last one.
            const [head, tail] = out.slice('Basic '.length, -' end'.length).split(REDACTED) as [string, string];
            expect(encoded.startsWith(head) && encoded.endsWith(tail)).toBe(true);
            const before = Buffer.byteLength(`${user}:`);
            const through = before + Buffer.byteLength(secret);
            expect(head.length).toBeLessThanOrEqual(Math.ceil((before * 8) / 6));
            expect(encoded.replace(/=+$/, '').length - tail.replace(/=+$/, '').length).toBeGreaterThanOrEqual(Math.floor((through * 8) / 6));
          }
        }
      }
    }
  });

  it('scrubs a secret wrapped over lines, with \\n or \\r\\n and indentation', () => {
    expectScrubbed('ghp_Ab12/Cd\n34+Ef56=Gh78');
    expectScrubbed('ghp_Ab12/Cd\r\n    34+Ef56=\n\tGh78');
    expectScrubbed('GHP_AB12%2FCD34\n  +EF56=GH78');
    const wrapped = b64(`x-access-token:${TOKEN}`).replace(/(.{7})/g, '$1\n  ');
    expect(scrubSecrets(`header: basic ${wrapped}\nafter`, [TOKEN])).toBe('header: basic ***\nafter');
    // Line breaks in ordinary text next to the secret are kept.
    expect(scrubSecrets(`line one\n${TOKEN}\nline three`, [TOKEN])).toBe('line one\n***\nline three');
  });

  it('leaves very short and blank secrets alone instead of wiping text', () => {
    const text = 'a bc def GHI ab ab%20 YWI= \n  ';
    expect(scrubSecrets(text, ['', 'a', 'ab', 'def', '    ', '\n\n\n\n'])).toBe(text);
    expect(scrubSecrets('user=abcd id=abc', ['abcd', 'abc'])).toBe('user=*** id=abc');
  });

  it('merges overlapping secrets and prefers the longer one', () => {
    expect(scrubSecrets('auth bot@acme:jira-api-token end', ['jira-api-token', 'bot@acme:jira-api-token'])).toBe('auth *** end');
    expect(scrubSecrets('x ABCDEFGH y', ['ABCDEF', 'DEFGH'])).toBe('x *** y');
  });

  it('treats regex and class metacharacters in secrets literally', () => {
    const secret = 'a.b*c+d?e^f$g{h}i(j)k|l[m]n\\o/p-q';
    expectScrubbed(secret, secret);
    expect(scrubSecrets('aXbXcXdXeXfXgXhXiXjXkXlXmXnXoXpXq', [secret])).toBe('aXbXcXdXeXfXgXhXiXjXkXlXmXnXoXpXq');
    expectScrubbed('emoji-🔑-key', 'emoji-🔑-key');
    expectScrubbed(encodeURIComponent('emoji-🔑-key'), 'emoji-🔑-key');
  });

  it('scrubs the one secret present in a long text among many configured, leaving the rest of the text as it was', () => {
    const secrets = Array.from({ length: 60 }, (_, i) => `secret-value-${i}-${'x'.repeat(i % 20)}-${i * 7919}`);
    const filler = 'Step failed: remote: Repository not found.\n    at git fetch origin (exit 128) ';
    const text = `${filler.repeat(2500)}${b64(`x-access-token:${secrets[42]}`)} ${filler.repeat(100)}`;
    const out = scrubSecrets(text, secrets);
    expect(text.length).toBeGreaterThan(200_000);
    expect(out).toContain(' *** ');
    expect(out.length).toBe(text.length - b64(`x-access-token:${secrets[42]}`).length + REDACTED.length);
  });
});

describe('collectSecrets with scrubSecrets', () => {
  it('scrubs derived forms of repository auth secrets, secrets: values and environment tokens', () => {
    const config = defaultServiceConfig();
    config.secrets = { SHOP_TOKEN: 'ghp_shop_token' };
    config.projects = {
      shop: {
        name: 'shop', tracker: Platform.GitHub,
        repos: [{ name: 'web', platform: Platform.GitHub, url: 'https://github.com/a/b', api_url: null, path_prefix: '', auth_secret: 'glpat-repo-auth', branch: null }],
        triggers: {},
        pr_commands: { enabled: false, require_member: true, allowed_pipelines: null }, agent: { ...DEFAULT_AGENT },
      },
    };
    const secrets = collectSecrets(config);
    const text = [
      `git -c http.extraheader="AUTHORIZATION: basic ${b64('x-access-token:glpat-repo-auth')}" fetch`,
      `Authorization: Basic ${b64('deploy:ghp_shop_token')}`,
      'url https://oauth2:GLPAT-REPO-AUTH@gitlab.example.com',
    ].join('\n');
    const out = scrubSecrets(text, secrets);
    expect(out).toBe([
      'git -c http.extraheader="AUTHORIZATION: basic ***" fetch',
      // 'deploy' is 6 bytes, so ':ghp_shop_token' starts a base64 group and is redacted whole.
      `Authorization: Basic ${b64('deploy:ghp_shop_token').slice(0, 8)}***`,
      'url https://oauth2:***@gitlab.example.com',
    ].join('\n'));
  });
});
