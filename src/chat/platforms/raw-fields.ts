/** Reading a platform's raw payload, which is untrusted JSON: a field is used only when it has the expected type. */

/** A non-blank configured value. */
export const isSet = (v: string | null | undefined): v is string => typeof v === 'string' && v.trim() !== '';

/** A non-empty string, else null. */
export const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** An object's fields, or none. */
export const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' ? (v as Record<string, unknown>) : {});

/** A request body parsed as a JSON object; anything else reads as `{}`. */
export function jsonObject(rawBody: Buffer): Record<string, unknown> {
  try {
    return obj(JSON.parse(rawBody.toString('utf8')));
  } catch {
    return {};
  }
}
