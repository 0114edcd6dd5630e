/**
 * The generic secret rule's measure: how random a value looks. Shannon entropy in bits per
 * character over the value's own characters; random base64 of 16+ characters scores about 3.7-4.5,
 * English words and identifiers about 2.5-3.3, so the thresholds below keep the words out.
 */
export function shannonEntropy(text: string): number {
  if (text.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  const length = [...text].length;
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** Shortest value the generic rule considers. */
export const MIN_SECRET_LENGTH = 16;
/** Bits per character a base64-ish (or any non-hex) value needs. */
export const BASE64_ENTROPY_THRESHOLD = 3.5;
/** Hex has only 16 symbols (at most 4 bits per character): its bar is lower. */
export const HEX_ENTROPY_THRESHOLD = 3.0;

/**
 * Values that sit where secrets go but are not secrets: references to the environment or a
 * template, placeholders, and lockfile integrity hashes.
 */
const NOT_A_SECRET: readonly RegExp[] = [
  /\$\{|\{\{|\$\(|%[A-Za-z_]+%/, // ${VAR}, {{ template }}, $(command), %VAR%
  /^\$[A-Za-z_][A-Za-z0-9_]*$/, // $VAR
  /^<.*>$/, // <your-token>
  /changeme|change_me|placeholder|example|dummy|redacted|sample|your[_-]|xxxx|\*{3}|\.{3}|todo|replace_?me|insert_?/i,
  /^(.)\1+$/, // aaaaaaaaaaaaaaaa
  /^sha(?:1|256|384|512)-[A-Za-z0-9+/=]+$/, // package-lock.json `integrity`
  /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/, // process.env.API_TOKEN, config.auth.password
  /^(?:\.{0,2}|~)\//, // a path
  /^[a-z][a-z0-9+.-]*:\/\/[^@]*$/i, // a URL without credentials
];

/**
 * Whether `value`, assigned to a secret-looking name, looks like a real secret: long enough, not
 * a placeholder or reference, holding a digit (identifiers and words rarely do, random tokens
 * nearly always) and random enough for its alphabet.
 */
export function looksLikeSecret(value: string): boolean {
  if (value.length < MIN_SECRET_LENGTH) return false;
  if (!/[0-9]/.test(value) || !/[A-Za-z]/.test(value)) return false;
  if (NOT_A_SECRET.some((pattern) => pattern.test(value))) return false;
  const threshold = /^[0-9a-f]+$/i.test(value) ? HEX_ENTROPY_THRESHOLD : BASE64_ENTROPY_THRESHOLD;
  return shannonEntropy(value) >= threshold;
}
