/**
 * `text` as it is when at most `max` UTF-16 units long, else cut to `max` units with a trailing
 * "…" and never through a surrogate pair (half an emoji would become U+FFFD once encoded).
 * Payload text (labels, keys, event names) is the sender's choice of size: it is clipped before
 * it is echoed in an answer or stored.
 */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}
