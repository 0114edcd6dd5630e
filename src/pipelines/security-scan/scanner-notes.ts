import type { ScannerReport } from './scan-finding.js';

/** Why a scanner did not run, for a sentence that already says so (`npm audit did not run: …`). */
export function whyNot(report: ScannerReport): string {
  return (report.note ?? 'no reason given').replace(/^not run:\s*/, '');
}
