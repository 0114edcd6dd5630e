import { scrubSecrets } from '../../common/secret-scrubber.js';
import { cutOutput } from '../output-cut.js';
import { sanitizeUntrusted, untrustedBlock } from '../untrusted-text.js';

/** Third-party text made ready for a prompt: an untrusted-data block, and what was cut from it. */
export interface UntrustedSection {
  block: string;
  /** Characters left out of the middle; 0 when the text was whole. */
  cut: number;
  /** Characters of the text before cutting (after sanitising and scrubbing). */
  length: number;
}

/**
 * Order matters. Sanitise first: a secret split by a zero-width space or an HTML comment is
 * whole again only after sanitising, and must be whole to be found. Then scrub, then cut (a
 * cut could otherwise leave half a secret nothing recognises), then delimit.
 */
export function untrustedSection(label: string, text: string, secrets: readonly string[], maxChars: number): UntrustedSection {
  const clean = scrubSecrets(sanitizeUntrusted(text), secrets);
  const { text: kept, cut } = cutOutput(clean, maxChars);
  return { block: untrustedBlock(label, kept), cut, length: [...clean].length };
}

/**
 * A short value shown outside any block (a ticket id, a repository or context name): sanitised,
 * secrets scrubbed, on one line, without backticks so it cannot end the code span it sits in,
 * and cut to `max` characters. Such values come from configuration or the platform, but a folder
 * name in a repository is anyone's choice.
 */
export function oneLine(value: string, secrets: readonly string[] = [], max = 100): string {
  const flat = scrubSecrets(sanitizeUntrusted(value), secrets).replace(/[\s`]+/g, ' ').trim();
  const chars = [...flat];
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : flat;
}

/** The trusted line that says a text below was cut, or nothing. */
export function cutNote(what: string, section: UntrustedSection): string {
  return section.cut > 0 ? `(${what} is long: ${section.cut} of its ${section.length} characters were cut from the middle, where the block says.)\n` : '';
}
