import type { ServiceEnvironment } from '../config/environment.js';
import type { ServiceConfig } from '../config/service-config.js';

/** What replaces a secret in text the service writes outside itself. */
export const REDACTED = '***';

/** Shorter values are not scrubbed: replacing two letters everywhere would garble the text, not protect it. */
const MIN_SECRET_LENGTH = 4;

/** Environment variables whose value counts as secret even when no configuration field refers to it. */
const SECRET_VARIABLE = /SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL|API_KEY|PRIVATE_KEY/i;

/**
 * Every secret value the service knows: the `secrets:` map, the stored secrets, webhook secrets, each repository's
 * `auth_secret`, each trigger's `credentials` and `secret` (with the token half of a Jira
 * `user:token` and the Basic-auth encodings the clients send), store and database passwords,
 * the agents' model `api_key`s, and environment variables named like secrets.
 */
export function collectSecrets(config: ServiceConfig, env: ServiceEnvironment | null = null): string[] {
  const found = new Set<string>();
  const add = (value: string | null | undefined) => {
    if (typeof value === 'string' && value.length >= MIN_SECRET_LENGTH) found.add(value);
  };
  for (const value of Object.values(config.secrets)) add(value);
  for (const value of Object.values(config.stored_secrets ?? {})) add(value);
  for (const value of Object.values(config.webhooks)) add(value);
  add(config.agent?.api_key);
  add(config.sandbox?.registry?.password);
  for (const project of Object.values(config.projects)) {
    add(project.agent?.api_key);
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

/**
 * `text` with every secret replaced by `***`, also when it appears
 * - in another case (`GHP_ABC` for `ghp_abc`);
 * - percent-encoded, in either hex case, whole or in part, once or twice (`%2f`, `%2F`, `%252F`; `+` for a space);
 * - wrapped by a tool: a line break (`\n` or `\r\n`) plus spaces or tabs between any two of its characters;
 * - base64 or base64url, padded or not, wrapped or percent-encoded, of the secret alone and of `x-access-token:`,
 *   `oauth2:` and `:` followed by it, and (see base64Fragments) of the secret inside any longer encoded string
 *   (`user:secret` for any user, git extraheaders, Basic auth).
 * Overlapping matches are merged, so two secrets sharing characters leave nothing between them.
 * Secrets shorter than MIN_SECRET_LENGTH (blank ones included) are left alone: they would garble the text.
 *
 * How: rather than one regular expression with every variant of every secret (V8 takes seconds to compile
 * that for a few dozen secrets), the text is read once into three normalized views (see View) that remember
 * where each of their bytes came from, each secret is normalized the same way, and the spans of the text
 * under every occurrence found with Buffer.indexOf are replaced. Linear in the text per secret, no compiling.
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  if (!text) return text;
  const needles = needlesFor(secrets);
  if (needles.length === 0) return text;
  const views = new Map<View, Normalized>();
  const spans: [number, number][] = [];
  for (const needle of needles) {
    let view = views.get(needle.view);
    if (!view) views.set(needle.view, (view = normalize(text, needle.view)));
    for (let at = view.bytes.indexOf(needle.bytes); at !== -1; at = view.bytes.indexOf(needle.bytes, at + 1)) {
      let last = at + needle.bytes.length - 1;
      for (let pad = 0; needle.padded && pad < 2 && view.bytes[last + 1] === EQUALS; pad++) last++;
      spans.push([view.start[at]!, view.end[last]!]);
    }
  }
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [start, end] of spans) {
    const last = merged.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  let out = '';
  let at = 0;
  for (const [start, end] of merged) {
    out += text.slice(at, start) + REDACTED;
    at = end;
  }
  return out + text.slice(at);
}

/**
 * How text is normalized before searching; a secret is normalized the same way, so a form matches whatever
 * the view erases. All views drop line breaks (`\n`, `\r\n`) with the spaces and tabs after them.
 * - `plain`: percent-escapes (`%XX`, also twice encoded `%25XX`, any hex case) decoded to their byte, UTF-8,
 *   lower case, `+` read as a space;
 * - `raw`: lower case only, for a secret whose own `%` or hex digits would be read as an escape next to the
 *   text around it;
 * - `base64`: percent-escapes decoded, base64url `-`/`_` read as `+`/`/`; case kept (it is data in base64).
 */
type View = 'plain' | 'raw' | 'base64';

interface Normalized {
  bytes: Buffer;
  /** Where in the original text the character behind each byte starts and ends. */
  start: Int32Array;
  end: Int32Array;
}

interface Needle {
  view: View;
  bytes: Buffer;
  /** A whole base64 encoding: `=` padding after it is part of the match. */
  padded: boolean;
}

const EQUALS = 0x3d;

/** Strings that are base64-encoded together with a token in git extraheaders and Basic auth. */
const BASE64_PREFIXES = ['', 'x-access-token:', 'oauth2:', ':'];

/** The needles of the last secrets seen, kept because callers scrub many texts with the same secrets. */
let cached: { key: string; needles: Needle[] } | null = null;

function needlesFor(secrets: readonly string[]): Needle[] {
  const usable = [...new Set(secrets)].filter((s) => typeof s === 'string' && s.trim().length >= MIN_SECRET_LENGTH);
  const key = JSON.stringify(usable);
  if (cached?.key === key) return cached.needles;
  const needles = new Map<string, Needle>();
  const add = (view: View, text: string, padded = false) => {
    const bytes = normalize(text, view).bytes;
    const id = `${view}:${bytes.toString('latin1')}`;
    if (bytes.length >= MIN_SECRET_LENGTH && !needles.get(id)?.padded) needles.set(id, { view, bytes, padded });
  };
  for (const secret of usable) {
    add('plain', secret);
    add('raw', secret);
    const bytes = Buffer.from(secret, 'utf8');
    for (const prefix of BASE64_PREFIXES) {
      const encoded = Buffer.concat([Buffer.from(prefix, 'utf8'), bytes]).toString('base64');
      add('base64', encoded.replace(/=+$/, ''), encoded.endsWith('='));
    }
    for (const fragment of base64Fragments(bytes)) add('base64', fragment);
  }
  cached = { key, needles: [...needles.values()] };
  return cached.needles;
}

/**
 * The base64 characters that encode nothing but `bytes`, wherever they sit in a longer encoded string.
 * Base64 turns each 3 bytes into 4 characters of 6 bits. A secret preceded by 0, 1 or 2 bytes (mod 3) starts
 * at bit 0, 8 or 16 of a group, so its first character or two also carry bits of the byte(s) before it, and
 * its last character or two bits of what follows (or padding): those depend on the neighbours. Encoding it
 * behind k = 0, 1 and 2 filler bytes and keeping only the characters whose 6 bits lie wholly inside the
 * secret, characters ceil(8k/6) up to floor(8(k+n)/6) for an n-byte secret, gives for each alignment a run
 * found verbatim in base64(anything + secret + anything). At most 2 characters either side of the run stay
 * in the text, and they carry at most 4 bits of the secret each.
 */
function base64Fragments(bytes: Buffer): string[] {
  return [0, 1, 2].map((k) =>
    Buffer.concat([Buffer.alloc(k), bytes]).toString('base64').slice(Math.ceil((8 * k) / 6), Math.floor((8 * (k + bytes.length)) / 6)),
  );
}

/** `text` read into the given view (see View), each byte with the span of `text` it came from. */
function normalize(text: string, view: View): Normalized {
  let bytes = new Uint8Array(text.length + 16);
  let start = new Int32Array(bytes.length);
  let end = new Int32Array(bytes.length);
  let n = 0;
  const push = (byte: number, from: number, to: number) => {
    if (n === bytes.length) {
      const grown = bytes.length * 2;
      bytes = copyInto(new Uint8Array(grown), bytes);
      start = copyInto(new Int32Array(grown), start);
      end = copyInto(new Int32Array(grown), end);
    }
    bytes[n] = byte;
    start[n] = from;
    end[n++] = to;
  };
  const pushText = (chars: string, from: number, to: number) => {
    for (const byte of Buffer.from(chars, 'utf8')) push(byte, from, to);
  };
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === 0x0a || (code === 0x0d && text.charCodeAt(i + 1) === 0x0a)) {
      i += code === 0x0d ? 2 : 1;
      while (text.charCodeAt(i) === 0x20 || text.charCodeAt(i) === 0x09) i++;
      continue;
    }
    if (view !== 'raw' && code === 0x25) {
      const escape = percentEscape(text, i);
      if (escape) {
        // A UTF-8 sequence spelled as escapes is decoded whole, to compare it in lower case.
        const need = escape.byte >= 0xf0 ? 3 : escape.byte >= 0xe0 ? 2 : escape.byte >= 0xc0 ? 1 : 0;
        const sequence = [escape.byte];
        let to = escape.end;
        for (let next = percentEscape(text, to); sequence.length <= need && next && (next.byte & 0xc0) === 0x80; next = percentEscape(text, to)) {
          sequence.push(next.byte);
          to = next.end;
        }
        if (view === 'plain' && need > 0 && sequence.length === need + 1) pushText(Buffer.from(sequence).toString('utf8').toLowerCase(), i, to);
        else push(fold(escape.byte, view), i, (to = escape.end));
        i = to;
        continue;
      }
    }
    if (code < 0x80) {
      push(fold(code, view), i, i + 1);
      i++;
      continue;
    }
    const char = String.fromCodePoint(text.codePointAt(i)!);
    if (view === 'base64') push(0, i, i + char.length); // never part of base64
    else pushText(char.toLowerCase(), i, i + char.length);
    i += char.length;
  }
  return { bytes: Buffer.from(bytes.buffer, 0, n), start, end };
}

/** `%XX` or `%25XX` (hex in any case) at `i`: the byte and where the escape ends. */
function percentEscape(text: string, i: number): { byte: number; end: number } | null {
  if (text.charCodeAt(i) !== 0x25) return null;
  for (const at of [i + 3, i + 1]) {
    if (at === i + 3 && text.slice(i + 1, i + 3) !== '25') continue;
    const hex = text.slice(at, at + 2);
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) return { byte: parseInt(hex, 16), end: at + 2 };
  }
  return null;
}

/** An ASCII (or single decoded) byte as the view compares it. */
function fold(byte: number, view: View): number {
  if (view === 'base64') return byte === 0x2d ? 0x2b : byte === 0x5f ? 0x2f : byte; // base64url -> base64
  if (byte >= 0x41 && byte <= 0x5a) return byte + 0x20;
  return view === 'plain' && byte === 0x2b ? 0x20 : byte; // form encoding: + is a space
}

function copyInto<T extends Uint8Array | Int32Array>(target: T, source: T): T {
  target.set(source);
  return target;
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
