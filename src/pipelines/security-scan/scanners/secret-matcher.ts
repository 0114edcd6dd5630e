import { createHash } from 'node:crypto';
import { TOKEN_RULES } from '../../../common/secret-rules.js';
import { looksLikeSecret } from './entropy.js';

/** The generic rule: a high-entropy value assigned to a secret-looking name. */
export const GENERIC_SECRET_RULE = 'high-entropy-string';

/** One secret on a line. Carries no value: a masked preview and a one-way fingerprint only. */
export interface SecretMatch {
  rule: string;
  /** What it is: `GitHub token`, `high-entropy value assigned to DB_PASSWORD`. */
  label: string;
  /** `ghp_…(40 chars)`: the token's public head, if it has one, and the length. */
  preview: string;
  /** Same value, same fingerprint (sha-256, never shown): a tree secret and its history are one. */
  fingerprint: string;
}

/** Lines longer than this (minified bundles) are inspected in windows of this size… */
export const LINE_WINDOW_CHARS = 4096;
/** …overlapping by more than the longest token, so a token across a window edge is still whole in one. */
const WINDOW_OVERLAP = 512;

const NAME_WORDS = String.raw`secret|token|passw(?:or)?d|pwd|api[_-]?key|private[_-]?key|access[_-]?key|auth[_-]?key|credential`;
/** `DB_PASSWORD = "…"`, `apiKey: '…'`, `token := …`, `"client_secret": "…"`, `$c['secret'] => …`, `SECRET=…` (.env). */
const GENERIC_ASSIGNMENT = new RegExp(
  String.raw`([A-Za-z0-9_.-]*(?:${NAME_WORDS})[A-Za-z0-9_.-]*)["']?\]?\s*(?::=|=>|[:=])\s*(?:"([^"\s]+)"|'([^'\s]+)'|\x60([^\x60\s]+)\x60|([^\s"'\x60,;(){}\[\]<>]+))`,
  'gi',
);

/**
 * POSIX extended patterns (used case-insensitively) that every line holding a secret matches:
 * `git grep -E -i` picks candidate lines with them and `findSecrets` decides.
 */
export const SECRET_LINE_HINTS: readonly string[] = [
  ...TOKEN_RULES.map((rule) => rule.hint),
  'secret|token|passw|pwd|api[_-]?key|private[_-]?key|access[_-]?key|auth[_-]?key|credential',
];
/** The same hints as one JavaScript pattern, for text that does not come from `git grep` (history). */
export const SECRET_LINE_HINT = new RegExp(SECRET_LINE_HINTS.join('|'), 'i');

const GLOBAL_RULES = TOKEN_RULES.map((rule) => ({ ...rule, pattern: new RegExp(rule.pattern.source, `${rule.pattern.flags}g`) }));

const fingerprintOf = (value: string) => createHash('sha256').update(value).digest('hex');

function preview(value: string, shownHead: RegExp | undefined): string {
  const head = shownHead?.exec(value)?.[0] ?? '';
  return `${head}…(${value.length} chars)`;
}

/**
 * Every secret on one line of `path` (a file's text, or a line a commit added): the well-known
 * token shapes first, then the generic rule for values no token rule claimed. A long line is
 * inspected in overlapping windows; a secret seen in two windows counts once.
 */
export function findSecrets(text: string, path: string): SecretMatch[] {
  const found = new Map<string, SecretMatch>();
  for (const window of windowsOf(text)) {
    const claimed: [number, number][] = [];
    for (const rule of GLOBAL_RULES) {
      for (const match of window.matchAll(rule.pattern)) {
        const value = match.groups?.['value'] ?? match[0];
        const start = match.index + match[0].length - value.length;
        claimed.push([start, start + value.length]);
        // A private key's marker line is the same in every key: its file tells keys apart.
        const fingerprint = fingerprintOf(rule.rule === 'private-key' ? `private-key\u0000${path}` : value);
        found.set(`${rule.rule}\u0000${fingerprint}`, { rule: rule.rule, label: rule.label, preview: preview(value, rule.shownHead), fingerprint });
      }
    }
    for (const match of window.matchAll(GENERIC_ASSIGNMENT)) {
      const value = match[2] ?? match[3] ?? match[4] ?? match[5] ?? '';
      const start = match.index + match[0].length - value.length - (match[5] === undefined ? 1 : 0);
      if (claimed.some(([from, to]) => start < to && from < start + value.length)) continue;
      if (!looksLikeSecret(value) || isLockfileHash(path, value)) continue;
      // The name is shown; one that itself looks like a token (an odd file) is not.
      const name = GLOBAL_RULES.some((rule) => new RegExp(rule.pattern.source, rule.pattern.flags.replace('g', '')).test(match[1] ?? '')) ? 'a secret-looking name' : (match[1] ?? '').slice(0, 60);
      const fingerprint = fingerprintOf(value);
      found.set(`${GENERIC_SECRET_RULE}\u0000${fingerprint}`, { rule: GENERIC_SECRET_RULE, label: `high-entropy value assigned to ${name}`, preview: preview(value, undefined), fingerprint });
    }
  }
  return [...found.values()];
}

/** Lockfiles are full of base64 integrity hashes next to package names like `js-tokens`. */
function isLockfileHash(path: string, value: string): boolean {
  return /(?:^|\/)(?:package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml)$/.test(path) && /^(?:sha\d+-|[A-Za-z0-9+/]+={0,2}$)/.test(value);
}

function windowsOf(text: string): string[] {
  if (text.length <= LINE_WINDOW_CHARS) return [text];
  const windows: string[] = [];
  for (let at = 0; at < text.length; at += LINE_WINDOW_CHARS - WINDOW_OVERLAP) {
    windows.push(text.slice(at, at + LINE_WINDOW_CHARS));
    if (at + LINE_WINDOW_CHARS >= text.length) break;
  }
  return windows;
}

const PEM_BLOCK = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)/g;

/**
 * `text` with every secret a rule recognises replaced by its masked preview: for free text that
 * did not come from these scanners (a model's finding quoting a line) before it is shown.
 */
export function maskSecrets(text: string): string {
  // A quoted key is its whole block, not only the marker line the rule matches.
  let masked = text.replace(PEM_BLOCK, (block) => `[private key …(${block.length} chars)]`);
  for (const rule of GLOBAL_RULES) {
    masked = masked.replace(rule.pattern, (whole: string, ...args: unknown[]) => {
      const groups = args.at(-1) as Record<string, string> | undefined;
      const value = typeof groups === 'object' && groups?.['value'] ? groups['value'] : whole;
      return whole.slice(0, whole.length - value.length) + preview(value, rule.shownHead);
    });
  }
  return masked.replace(GENERIC_ASSIGNMENT, (whole: string, _name: string, ...values: unknown[]) => {
    const value = values.slice(0, 4).find((v): v is string => typeof v === 'string') ?? '';
    return looksLikeSecret(value) ? whole.replace(value, preview(value, undefined)) : whole;
  });
}
