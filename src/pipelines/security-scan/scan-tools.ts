import { RELEASE } from '../../common/release.js';
import type { Sandbox } from '../../sandbox/sandbox-backend.js';
import type { CommittedTree } from '../pipeline.js';
import type { ScannerReport } from './scan-finding.js';
import { renderScanReport } from './scan-report.js';
import { toSarif } from './sarif.js';
import { auditNpmDependencies } from './scanners/dependency-audit.scanner.js';
import { scanHistoryForSecrets } from './scanners/history-secrets.scanner.js';
import { scanTreeForSecrets } from './scanners/tree-secrets.scanner.js';

/** The deterministic scanners and the report writers, as the `security-scan` pipeline calls them. */
export interface ScanTools {
  /** `repo`: the repository's name in a multi-repository project (findings carry it), else null. Secrets in the tree, then in its last 500 commits (a secret still in the tree is reported once, by the tree scan). */
  secrets(tree: CommittedTree, repo: string | null, signal: AbortSignal): Promise<ScannerReport[]>;
  /** The ecosystem's dependency audit, inside the sandbox (`npm audit`). */
  dependencies(sandbox: Sandbox, repo: string | null, signal: AbortSignal): Promise<ScannerReport>;
  /** SARIF 2.1.0 of the whole scan, as JSON text. */
  sarif(reports: readonly ScannerReport[]): string;
  /** The markdown report. */
  markdown(reports: readonly ScannerReport[], title: string): string;
}

export const SCAN_TOOLS: ScanTools = {
  async secrets(tree, repo, signal) {
    const inTree = await scanTreeForSecrets(tree, { signal, repo });
    const history = await scanHistoryForSecrets(tree, { signal, repo, inTree: inTree.fingerprints });
    return [inTree.report, history];
  },
  dependencies: (sandbox, repo, signal) => auditNpmDependencies(sandbox, { signal, repo }),
  sarif: (reports) => `${JSON.stringify(toSarif(reports, { toolVersion: RELEASE }), null, 2)}\n`,
  markdown: (reports, title) => renderScanReport(reports, { title }),
};
