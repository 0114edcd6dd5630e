/**
 * A setting's value as a person types it. Where the value in force is text, what is typed is text
 * (so "8" stays "8" and `${NAME}` needs no quotes); elsewhere it is read as JSON (8, true, [..],
 * {..}, null), and text that is not JSON is taken as text. A masked value (`***`) is never
 * offered back for editing.
 */
export type ParsedSetting = { ok: true; value: unknown } | { ok: false; error: string };

export function settingInputText(current: unknown): string {
  if (current === '***') return '';
  if (typeof current === 'string') return current;
  if (current === undefined) return '';
  return JSON.stringify(current, null, Array.isArray(current) || (current && typeof current === 'object') ? 2 : undefined);
}

export function parseSettingInput(text: string, current: unknown): ParsedSetting {
  if (typeof current === 'string') return { ok: true, value: text };
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, error: 'Type a value (null unsets the key over the file).' };
  try {
    return { ok: true, value: JSON.parse(trimmed) };
  } catch {
    if (/^[[{]/.test(trimmed)) return { ok: false, error: 'This looks like JSON but does not parse: check brackets, quotes and commas.' };
    return { ok: true, value: trimmed };
  }
}

/** A value for a table cell: text as is, the rest as compact JSON. */
export function showValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value);
}

/** Where a key is changed when it is not a stored setting (settings-document.ts's rules), else null. */
export function notEditableReason(key: string): string | null {
  const top = key.split(/[.[]/)[0];
  if (top === 'secrets') return 'the secrets block: set values on Secrets or in the environment';
  if (['auth.authority', 'auth.audience', 'auth.enforce'].some((b) => key === b || key.startsWith(`${b}.`))) return 'a bootstrap setting: change it in the file or the environment, then restart';
  if (top === 'auth') return 'access records: change them on Access';
  return null;
}
