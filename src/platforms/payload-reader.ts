import type { IncomingHttpHeaders } from 'node:http';

/**
 * Total, non-throwing readers for untrusted JSON payloads. Each returns null (or an empty
 * list) instead of throwing on a missing field or a wrong type, so parsers stay simple.
 */

export type JsonRecord = Readonly<Record<string, unknown>>;

/** The value as a plain object, or null for null, arrays and primitives. */
export function asRecord(value: unknown): JsonRecord | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonRecord) : null;
}

/** Walks `path` through nested objects; null as soon as a step is not an object. */
export function at(value: unknown, ...path: string[]): unknown {
  let current: unknown = value;
  for (const key of path) {
    const record = asRecord(current);
    if (record === null || !Object.hasOwn(record, key)) return null;
    current = record[key];
  }
  return current;
}

/** A string value, or null. */
export function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** A non-blank string, or null. */
export function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/** A finite number, or null. */
export function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** A positive safe integer (ids, numbers), or null; numeric strings are accepted. */
export function positiveInt(value: unknown): number | null {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value.trim()) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** An id (string or number) as a string, or null. */
export function idString(value: unknown): string | null {
  if (typeof value === 'string') return value.trim() === '' ? null : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/** The elements of an array value; an empty list for anything else. */
export function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A boolean that is exactly `true`. */
export function isTrue(value: unknown): boolean {
  return value === true;
}

/** Unique strings, first occurrence wins. */
export function unique(values: Iterable<string>): string[] {
  return [...new Set(values)];
}

/** Items of `after` not in `before`, compared exactly (trackers already hand labels back as written). */
export function added(after: readonly string[], before: readonly string[]): string[] {
  const previous = new Set(before);
  return unique(after.filter((item) => !previous.has(item)));
}

/**
 * One header value from Node's lower-cased `IncomingHttpHeaders`: the first of repeated values,
 * trimmed; null when absent or blank.
 */
export function header(headers: IncomingHttpHeaders, name: string): string | null {
  const raw = headers[name.toLowerCase()];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

/** The first present header among `names`. */
export function firstHeader(headers: IncomingHttpHeaders, ...names: string[]): string | null {
  for (const name of names) {
    const value = header(headers, name);
    if (value !== null) return value;
  }
  return null;
}
