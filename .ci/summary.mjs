// Prints the suite's outcome as one plain line from Vitest's JSON report.
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync(new URL('./test-report.json', import.meta.url), 'utf8'));
const skipped = report.numPendingTests + report.numTodoTests;
console.log(`tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
if (report.numTotalTests === 0) {
  console.error('no test ran');
  process.exit(1);
}
