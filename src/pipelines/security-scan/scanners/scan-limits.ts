import { clipText } from '../../../common/clip-text.js';

/** Limits the secret scanners share, and the note that says what they cut. */

/** Files bigger than this are not read (generated data, vendored archives): the note says which. */
export const MAX_SCANNED_FILE_BYTES = 1024 * 1024;
/** A scanner reports at most this many findings (a leaked `.env` copied everywhere is one problem). */
export const MAX_FINDINGS = 1000;

export interface SecretScanOptions {
  signal?: AbortSignal;
  /** The repository's name in a multi-repository project (the findings' `repo`), else null. */
  repo?: string | null;
}

/** What the scan left out or cut short, for the report; null when it read everything. */
export function skippedNote(large: readonly string[], longLines: number, capped: boolean, what: 'file' | 'change' = 'file'): string | null {
  const parts: string[] = [];
  if (large.length > 0) {
    const named = large.slice(0, 3).join(', ');
    parts.push(`skipped ${large.length} ${what}${large.length === 1 ? '' : 's'} over 1 MiB (${named}${large.length > 3 ? ', …' : ''})`);
  }
  if (longLines > 0) parts.push(`inspected ${longLines} line${longLines === 1 ? '' : 's'} over 4 KiB in windows`);
  if (capped) parts.push(`reported the first ${MAX_FINDINGS} findings only`);
  return parts.length > 0 ? clipText(parts.join('; '), 500) : null;
}
