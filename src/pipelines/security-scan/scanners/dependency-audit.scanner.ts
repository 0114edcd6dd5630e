import { performance } from 'node:perf_hooks';
import { clipText } from '../../../common/clip-text.js';
import { OutputStream, type Sandbox } from '../../../sandbox/sandbox-backend.js';
import { type ScannerReport, ScanTool } from '../scan-finding.js';
import { NPM_LOCKFILE, npmAuditFindings } from './npm-audit-findings.js';

/** How long npm audit may take (it asks the registry once, in bulk). */
export const NPM_AUDIT_TIMEOUT_MS = 5 * 60 * 1000;
/** Most report text kept: a huge monorepo's report is a few MiB. */
const MAX_REPORT_BYTES = 64 * 1024 * 1024;

/** Lines the script marks so they are not taken for the report: `@@ <what> …`. */
const MARK = '@@pipeline-service';

/**
 * Runs in the sandbox's tree (the tool must be in the image): says why it cannot run, else lists
 * the lockfile's package entries with their line numbers, then runs `npm audit` on the lockfile
 * alone (no install; few retries, so an offline sandbox answers in seconds, not minutes).
 */
const SCRIPT = [
  `if [ ! -f ${NPM_LOCKFILE} ]; then echo '${MARK} no-lockfile'; exit 0; fi`,
  `if ! command -v npm >/dev/null 2>&1; then echo '${MARK} no-npm'; exit 0; fi`,
  `grep -n -E '^[[:space:]]*"([^"]*/)?node_modules/[^"]+": [{]' ${NPM_LOCKFILE} | sed 's/^/${MARK} lock /'`,
  'npm audit --json --package-lock-only --no-update-notifier --no-fund --fetch-retries=1 --fetch-retry-mintimeout=1000 --fetch-retry-maxtimeout=5000',
].join('\n');

export interface DependencyAuditOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** The repository's name in a multi-repository project (the findings' `repo`), else null. */
  repo?: string | null;
}

/**
 * The npm dependency audit of the sandbox's tree: one finding per vulnerable package. Reported as
 * not run, with a one-line reason, when there is no package-lock.json, no npm in the image, no
 * registry to ask (an offline sandbox) or no report. Rejects with the signal's reason on abort.
 */
export async function auditNpmDependencies(sandbox: Sandbox, options: DependencyAuditOptions = {}): Promise<ScannerReport> {
  const started = performance.now();
  const report = (ran: boolean, note: string | null, findings: ScannerReport['findings'] = []): ScannerReport => ({
    tool: ScanTool.Dependencies,
    name: 'npm audit',
    ran,
    note,
    findings,
    durationMs: Math.round(performance.now() - started),
  });
  const timeoutMs = options.timeoutMs ?? NPM_AUDIT_TIMEOUT_MS;
  const lockLines = new Map<string, number>();
  const json: string[] = [];
  let jsonBytes = 0;
  let missing: string | null = null;
  const onLine = (stream: OutputStream, line: string) => {
    // npm's stderr repeats what its JSON says, with URLs as configured: not kept.
    if (stream === OutputStream.Stderr) return;
    if (line.startsWith(`${MARK} lock `)) {
      const entry = /^(\d+):\s*"([^"]+)"/.exec(line.slice(MARK.length + 6));
      if (entry && !lockLines.has(entry[2]!)) lockLines.set(entry[2]!, Number(entry[1]));
    } else if (line.startsWith(`${MARK} no-`)) missing = line.slice(MARK.length + 1);
    else if (jsonBytes <= MAX_REPORT_BYTES) {
      json.push(line);
      jsonBytes += line.length + 1;
    }
  };
  let result;
  try {
    result = await sandbox.exec(SCRIPT, { timeoutMs, onLine, signal: options.signal, env: { NO_COLOR: '1' } });
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason ?? error;
    return report(false, clipText(`npm audit could not be started in the sandbox: ${(error as Error).message}`, 300));
  }
  if (options.signal?.aborted) throw options.signal.reason ?? new Error('aborted');
  if (missing === 'no-lockfile') return report(false, `not run: no ${NPM_LOCKFILE}`);
  if (missing === 'no-npm') return report(false, 'not run: npm is not in the image');
  if (result.timedOut) return report(false, `npm audit did not finish within ${Math.round(timeoutMs / 1000)} s`);
  if (jsonBytes > MAX_REPORT_BYTES) return report(false, 'npm audit printed more than 64 MiB: its report was not read');
  const outcome = npmAuditFindings(json.join('\n'), lockLines, options.repo ?? null);
  if (!outcome.ok) {
    const exit = result.exitCode === null ? `killed by ${result.signal ?? 'a signal'}` : `exit ${result.exitCode}`;
    return report(false, outcome.reason === 'npm audit printed nothing' ? `npm audit printed no report (${exit})` : outcome.reason);
  }
  return report(true, null, outcome.findings);
}
