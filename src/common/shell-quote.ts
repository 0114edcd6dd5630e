/** `'it'\''s'`: one word the POSIX shell takes literally, whatever the text holds. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
